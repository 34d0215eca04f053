#!/usr/bin/env python3
# Rewrites the rows of docs/checks.md's "Which fixes rocm-doctor fix applies" table from
# what `fix --dry-run` makes of every scenario. Run from the repository root:
#   python3 tests/fix/gen_fix_table.py build/rocm-doctor
import json,glob,collections,subprocess,os,re,sys
doctor=sys.argv[1]
modes=collections.defaultdict(set); reasons=collections.defaultdict(set)
os.makedirs('/tmp/fl',exist_ok=True)
for s in sorted(glob.glob('tests/scenarios/*/snapshot.json')):
    d=os.path.dirname(s); out='/tmp/fl/'+os.path.basename(d)+'.json'
    subprocess.run([doctor,'fix','--dry-run','--replay',d,'-o','json='+out],capture_output=True)
    if not os.path.exists(out): continue
    for st in json.load(open(out)).get('fix_log',{}).get('steps',[]):
        if st['finding'].startswith('site.'): continue
        modes[st['finding']].add(st['mode'])
        r=st.get('reason')
        if r:
            if r.startswith('needs a person'): r='needs a person at an editor or prompt'
            reasons[st['finding']].add(r)
order=['apply','investigate','manual','site']
rows=[f"| `{k}` | {', '.join(x for x in order if x in modes[k])} | {'; '.join(sorted(reasons[k]))} |" for k in sorted(modes)]
p='docs/checks.md'
page=open(p).read()
head='\n## Which fixes `rocm-doctor fix` applies\n'
i=page.index(head)
j=page.find('\n## ',i+1)
sec=page[i: j if j>=0 else len(page)]
k=sec.index('|---|---|---|\n')+len('|---|---|---|\n')
newsec=sec[:k]+'\n'.join(rows)+'\n'
page=page[:i]+newsec+(page[j:] if j>=0 else '')
open(p,'w').write(page)
print(len(rows),'rows')
