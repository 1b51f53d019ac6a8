#!/usr/bin/env python3
"""The build context of apps/Dockerfile, as a list of files, a hash and a staged copy (stdlib only).

The context is what `docker build .` at the repository root would send: the files of the working
tree that git knows of (tracked, as they are now, modified or not, plus untracked files that
.gitignore does not ignore), less those the repository's .dockerignore excludes. Building from a
staged copy of exactly these files makes the hash a true cache key: nothing else can reach the
image (no stray node_modules, build output or ignored local files).

  context.py hash  --root REPO [--ignorefile REPO/.dockerignore]
      Prints the sha256 over every file's path, kind (file, executable, symlink) and content.
  context.py stage --root REPO --out DIR [--ignorefile ...]
      Copies the files into DIR (which must not exist); prints the hash.
  context.py list  --root REPO [--ignorefile ...]
      Prints the paths, one a line.

.dockerignore semantics are Docker's: one pattern a line, # comments, `!` re-includes, a leading /
is dropped, `*` and `?` stop at /, `**` spans directories, and a pattern that matches a directory
excludes everything under it; the last matching line wins.
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys


def compile_pattern(pattern):
    """A .dockerignore pattern as a regex over slash-separated relative paths."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == '*':
            if pattern.startswith('**', i):
                i += 2
                if i < n and pattern[i] == '/':
                    out.append('(?:.*/)?')
                    i += 1
                else:
                    out.append('.*')
                continue
            out.append('[^/]*')
        elif c == '?':
            out.append('[^/]')
        elif c == '[':
            end = pattern.find(']', i + 1)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:end]
                if body.startswith('^') or body.startswith('!'):
                    body = '^' + body[1:]
                out.append('[' + body.replace('\\', '\\\\') + ']')
                i = end
        elif c == '\\' and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile(''.join(out) + r'\Z')


def read_ignorefile(path):
    rules = []
    if not path or not os.path.exists(path):
        return rules
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            negate = line.startswith('!')
            if negate:
                line = line[1:].strip()
            line = os.path.normpath(line).lstrip('/')
            if line in ('', '.'):
                continue
            rules.append((negate, compile_pattern(line)))
    return rules


def excluded(path, rules):
    parts = path.split('/')
    prefixes = ['/'.join(parts[:k]) for k in range(1, len(parts) + 1)]
    verdict = False
    for negate, regex in rules:
        if any(regex.match(p) for p in prefixes):
            verdict = not negate
    return verdict


def context_files(root, ignorefile):
    try:
        listed = subprocess.run(
            ['git', '-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
            check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f'context.py: cannot list the files of {root} with git: {e}')
    rules = read_ignorefile(ignorefile)
    paths = set()
    for raw in listed.split(b'\0'):
        if not raw:
            continue
        path = raw.decode('utf-8', 'surrogateescape')
        # tracked but deleted in the working tree: not in the context
        if os.path.lexists(os.path.join(root, path)) and not excluded(path, rules):
            paths.add(path)
    return sorted(paths)


def digest(root, paths):
    h = hashlib.sha256()
    for path in paths:
        full = os.path.join(root, path)
        if os.path.islink(full):
            kind, data = 'l', os.readlink(full).encode()
        else:
            kind = 'x' if os.access(full, os.X_OK) else 'f'
            fh = hashlib.sha256()
            with open(full, 'rb') as f:
                for chunk in iter(lambda: f.read(1 << 20), b''):
                    fh.update(chunk)
            data = fh.hexdigest().encode()
        h.update(path.encode('utf-8', 'surrogateescape') + b'\0' + kind.encode() + b'\0' + data + b'\n')
    return h.hexdigest()


def stage(root, paths, out):
    os.makedirs(out)
    for path in paths:
        src, dst = os.path.join(root, path), os.path.join(out, path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.islink(src):
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('command', choices=('hash', 'stage', 'list'))
    ap.add_argument('--root', required=True)
    ap.add_argument('--ignorefile')
    ap.add_argument('--out')
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    ignorefile = a.ignorefile if a.ignorefile is not None else os.path.join(root, '.dockerignore')
    paths = context_files(root, ignorefile)
    if a.command == 'list':
        sys.stdout.write(''.join(p + '\n' for p in paths))
        return
    if a.command == 'stage':
        if not a.out:
            sys.exit('context.py stage: --out DIR is required')
        stage(root, paths, a.out)
    print(digest(root, paths))


if __name__ == '__main__':
    main()
