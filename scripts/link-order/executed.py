#!/usr/bin/env python3
"""The functions of one binary that callgrind profiles record as executed.

Usage:
  executed.py order BINARY PROFILE...   the symbols, first seen first (a link order file)
  executed.py regions BINARY PROFILE    how many 64 KiB regions of BINARY's code they lie in

A symbol is named as the profile names it: run valgrind with --demangle=no, so that C++ names
stay mangled like Swift's and match the binary's symbol table (nm). Callgrind marks a
recursive call's function with a suffix ('2); it is dropped. Standard library only.
"""
import re
import subprocess
import sys

REGION = 64 * 1024  # the kernel's fault-around: one fault maps up to 16 pages of a file


def executed(binary, profiles):
    """The names, first seen first, of functions executed in BINARY (matched by its file name)."""
    target = binary.rsplit('/', 1)[-1]
    names, seen = [], set()
    for path in profiles:
        objects, functions = {}, {}
        current = callee_object = None
        with open(path, errors='replace') as profile:
            for line in profile:
                line = line.rstrip('\n')
                m = re.match(r'^(c?ob)=\((\d+)\)(?: (.*))?$', line)
                if m:
                    if m.group(3) is not None:
                        objects[m.group(2)] = m.group(3)
                    if m.group(1) == 'ob':
                        current = callee_object = objects[m.group(2)]
                    else:
                        callee_object = objects[m.group(2)]
                    continue
                m = re.match(r'^(c?fn)=\((\d+)\)(?: (.*))?$', line)
                if not m:
                    continue
                if m.group(3) is not None:
                    functions[m.group(2)] = re.sub(r"'\d+$", '', m.group(3))
                name = functions[m.group(2)]
                where = current if m.group(1) == 'fn' else callee_object
                callee_object = current  # a cob= names the object of the next cfn= only
                if where and where.rsplit('/', 1)[-1] == target and not name.startswith('0x') \
                        and ' ' not in name and name not in seen:
                    seen.add(name)
                    names.append(name)
    return names


def regions(binary, names):
    table = subprocess.run(['nm', '-S', '--defined-only', binary], capture_output=True, text=True, check=True).stdout
    code = {}
    for line in table.splitlines():
        field = line.split()
        if len(field) == 4 and field[2] in 'tTwW':
            code[field[3]] = (int(field[0], 16), int(field[1], 16))
    touched, found = set(), 0
    for name in names:
        if name in code:
            start, size = code[name]
            found += 1
            touched.update(range(start // REGION, (start + max(size, 1) - 1) // REGION + 1))
    return len(touched), found


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ('order', 'regions'):
        sys.exit(__doc__)
    names = executed(sys.argv[2], sys.argv[3:])
    if sys.argv[1] == 'order':
        print('\n'.join(names))
    else:
        count, found = regions(sys.argv[2], names)
        print(count, found, len(names))


if __name__ == '__main__':
    main()
