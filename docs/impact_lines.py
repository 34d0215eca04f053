"""Writes the 'Impact:' line of every finding section in docs/checks.md from checks/data/finding_impact.json."""
import json, re, sys
root = sys.argv[1] if len(sys.argv) > 1 else '.'
data = json.load(open(f'{root}/checks/data/finding_impact.json'))
classes = data['classes']
def phrase(entry):
    if isinstance(entry, str):
        return f"`{entry}` ({classes[entry]})."
    order = ['error', 'warning', 'info', 'ok']
    parts = [f"`{entry[s]}` at {s}" for s in order if s in entry]
    return ", ".join(parts) + "."
lines = open(f'{root}/docs/checks.md').read().split('\n')
out = []
i = 0
while i < len(lines):
    line = lines[i]
    out.append(line)
    m = re.match(r'^### ([a-z0-9][a-z0-9.*-]*)\s*$', line)
    if m and m.group(1) in data['impact']:
        if i + 1 < len(lines) and lines[i + 1].startswith('Impact: '):
            i += 1
        out.append('Impact: ' + phrase(data['impact'][m.group(1)]))
    i += 1
open(f'{root}/docs/checks.md', 'w').write('\n'.join(out))
