"""Writes the 'Messages:' paragraph of every finding section in docs/checks.md from
checks/data/error_signatures.json: the signatures whose causes name the finding, in catalogue
order (tests/symptom/check_messages_test.cpp holds the two to each other). A section that says
'Messages: none (why)' keeps it while no signature names the finding.
Run from the repository root after changing the catalogue: python3 docs/messages_lines.py"""
import json
import re
import sys
import textwrap

root = sys.argv[1] if len(sys.argv) > 1 else '.'
signatures = json.load(open(f'{root}/checks/data/error_signatures.json'))['signatures']
naming = {}
for signature in signatures:
    for cause in signature['causes']:
        for finding in cause['findings']:
            ids = naming.setdefault(finding, [])
            if signature['id'] not in ids:
                ids.append(signature['id'])


def paragraph(ids):
    text = 'Messages: ' + ', '.join(f'`{i}`' for i in ids) + ' (`rocm-doctor explain ID`).'
    return textwrap.wrap(text, width=100, break_on_hyphens=False, break_long_words=False)


def sections(lines):
    """(id, first line, end line) of each '### id' section; end is exclusive, before trailing blanks."""
    starts = [i for i, line in enumerate(lines) if re.match(r'^#{2,3} ', line)] + [len(lines)]
    for start, following in zip(starts, starts[1:]):
        found = re.match(r'^### ([a-z0-9][a-z0-9.*-]*)\s*$', lines[start])
        end = following
        while end > start and not lines[end - 1].strip():
            end -= 1
        if found:
            yield found.group(1), start, end


def rewrite(lines, finding, start, end):
    body = lines[start:end]
    at = next((i for i, line in enumerate(body) if line.startswith('Messages: ')), None)
    ids = naming.get(finding, [])
    if at is None:
        return body + paragraph(ids) if ids else body
    stop = at + 1
    while stop < len(body) and body[stop].strip():
        stop += 1
    if not ids:
        return body
    return body[:at] + paragraph(ids) + body[stop:]


lines = open(f'{root}/docs/checks.md').read().split('\n')
out, done = [], 0
for finding, start, end in sections(lines):
    out.extend(lines[done:start])
    out.extend(rewrite(lines, finding, start, end))
    done = end
out.extend(lines[done:])
open(f'{root}/docs/checks.md', 'w').write('\n'.join(out))
