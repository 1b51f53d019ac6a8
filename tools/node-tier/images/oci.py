#!/usr/bin/env python3
"""OCI image archives without a registry or a daemon (Python standard library only).

An archive here is an OCI image layout (oci-layout, index.json, blobs/sha256/*) in one tar file,
with one linux/amd64 image whose index entry carries its reference twice: as
`io.containerd.image.name` (what `ctr -n k8s.io images import` names the image by) and as
`org.opencontainers.image.ref.name` (what buildah/skopeo `oci-archive:` look up).

  oci.py pack LAYER.tar --ref REF --out OUT.tar [--env K=V]... [--entrypoint JSON] [--cmd JSON]
             [--user UID:GID] [--workdir DIR] [--label K=V]... [--expose PORT/PROTO]...
      One image from one uncompressed layer (a root filesystem tarball). The layer is hard-linked,
      not copied, into the layout; `created` is $SOURCE_DATE_EPOCH (default 0) so equal inputs
      give equal digests.
  oci.py retag LAYOUT_DIR --ref REF --out OUT.tar
      Packs an OCI layout directory holding exactly one image (e.g. `buildah push IMG oci:DIR`)
      into an archive, (re)setting both reference annotations.
  oci.py verify OUT.tar [--ref REF]
      Checks the archive: layout version, one manifest, every blob's sha256 and size, the media
      types; with --ref, that the reference is REF. Prints a one-line JSON summary.
"""
import argparse
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import time

LAYOUT = {'imageLayoutVersion': '1.0.0'}
MT_INDEX = 'application/vnd.oci.image.index.v1+json'
MT_MANIFEST = 'application/vnd.oci.image.manifest.v1+json'
MT_CONFIG = 'application/vnd.oci.image.config.v1+json'
MT_LAYER = 'application/vnd.oci.image.layer.v1.tar'
LAYER_TYPES = (MT_LAYER, MT_LAYER + '+gzip', MT_LAYER + '+zstd')
ANN_CONTAINERD = 'io.containerd.image.name'
ANN_REF = 'org.opencontainers.image.ref.name'
PLATFORM = {'architecture': 'amd64', 'os': 'linux'}
CHUNK = 1 << 20


class Failure(Exception):
    pass


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(CHUNK), b''):
            h.update(chunk)
    return h.hexdigest()


def canonical(obj):
    return json.dumps(obj, separators=(',', ':'), sort_keys=True).encode()


def key_values(items, what):
    out = {}
    for item in items:
        key, sep, value = item.partition('=')
        if not sep or not key:
            raise Failure(f'{what} must be KEY=VALUE, got {item!r}')
        out[key] = value
    return out


def json_list(text, what):
    if text is None:
        return None
    value = json.loads(text)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Failure(f'{what} must be a JSON array of strings, got {text!r}')
    return value


class Layout:
    """An OCI layout being assembled in a scratch directory next to the output archive."""

    def __init__(self, out):
        self.dir = tempfile.mkdtemp(prefix='.oci-', dir=os.path.dirname(os.path.abspath(out)))
        self.blobs = os.path.join(self.dir, 'blobs', 'sha256')
        os.makedirs(self.blobs)

    def put_bytes(self, data, media_type):
        digest = hashlib.sha256(data).hexdigest()
        with open(os.path.join(self.blobs, digest), 'wb') as f:
            f.write(data)
        return {'mediaType': media_type, 'digest': 'sha256:' + digest, 'size': len(data)}

    def put_file(self, path, media_type):
        digest = sha256_of(path)
        target = os.path.join(self.blobs, digest)
        try:
            os.link(path, target)
        except OSError:
            shutil.copyfile(path, target)
        return {'mediaType': media_type, 'digest': 'sha256:' + digest, 'size': os.path.getsize(target)}

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def index_for(manifest_desc, ref):
    entry = dict(manifest_desc)
    entry['platform'] = PLATFORM
    entry['annotations'] = {ANN_CONTAINERD: ref, ANN_REF: ref}
    return {'schemaVersion': 2, 'mediaType': MT_INDEX, 'manifests': [entry]}


def write_archive(layout_dir, index, out):
    """Writes oci-layout, index.json and every blob under layout_dir/blobs into the tar `out`."""
    tmp = out + '.partial'

    def add_bytes(tar, name, data):
        info = tarfile.TarInfo(name)
        info.size, info.mode, info.mtime = len(data), 0o644, 0
        tar.addfile(info, fileobj=io.BytesIO(data))

    with tarfile.open(tmp, 'w', format=tarfile.PAX_FORMAT) as tar:
        add_bytes(tar, 'oci-layout', canonical(LAYOUT))
        add_bytes(tar, 'index.json', canonical(index))
        for dirpath, dirnames, filenames in os.walk(os.path.join(layout_dir, 'blobs')):
            dirnames.sort()
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                info = tarfile.TarInfo(os.path.relpath(path, layout_dir))
                info.size, info.mode, info.mtime = os.path.getsize(path), 0o644, 0
                with open(path, 'rb') as f:
                    tar.addfile(info, fileobj=f)
    os.replace(tmp, out)



def cmd_pack(a):
    created = int(os.environ.get('SOURCE_DATE_EPOCH', '0'))
    env = key_values(a.env, '--env')
    env.setdefault('PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin')
    container = {'Env': [f'{k}={v}' for k, v in env.items()], 'WorkingDir': a.workdir}
    for field, value in (('Entrypoint', json_list(a.entrypoint, '--entrypoint')),
                         ('Cmd', json_list(a.cmd, '--cmd'))):
        if value is not None:
            container[field] = value
    if a.user:
        container['User'] = a.user
    if a.label:
        container['Labels'] = key_values(a.label, '--label')
    if a.expose:
        container['ExposedPorts'] = {p: {} for p in a.expose}
    layout = Layout(a.out)
    try:
        layer = layout.put_file(a.layer, MT_LAYER)
        stamp = _rfc3339(created)
        config = {
            'created': stamp, 'architecture': PLATFORM['architecture'], 'os': PLATFORM['os'],
            'config': container,
            'rootfs': {'type': 'layers', 'diff_ids': [layer['digest']]},
            'history': [{'created': stamp, 'created_by': a.created_by}],
        }
        manifest = {
            'schemaVersion': 2, 'mediaType': MT_MANIFEST,
            'config': layout.put_bytes(canonical(config), MT_CONFIG),
            'layers': [layer],
        }
        index = index_for(layout.put_bytes(canonical(manifest), MT_MANIFEST), a.ref)
        write_archive(layout.dir, index, a.out)
    finally:
        layout.cleanup()
    print(json.dumps({'ref': a.ref, 'out': a.out, 'layer': layer['digest'], 'layerSize': layer['size']}))


def _rfc3339(epoch):
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(epoch))


def cmd_retag(a):
    with open(os.path.join(a.layout, 'index.json')) as f:
        index = json.load(f)
    manifests = index.get('manifests', [])
    if len(manifests) != 1:
        raise Failure(f'{a.layout}: expected one image in index.json, found {len(manifests)}')
    desc = {k: manifests[0][k] for k in ('mediaType', 'digest', 'size')}
    if desc['mediaType'] != MT_MANIFEST:
        raise Failure(f'{a.layout}: the image is {desc["mediaType"]}, not an OCI manifest')
    write_archive(a.layout, index_for(desc, a.ref), a.out)
    print(json.dumps({'ref': a.ref, 'out': a.out, 'manifest': desc['digest']}))


def cmd_verify(a):
    with tarfile.open(a.archive) as tar:
        members = {m.name.lstrip('./'): m for m in tar.getmembers() if m.isfile()}

        def read_json(name):
            if name not in members:
                raise Failure(f'{a.archive}: {name} is missing')
            return json.load(tar.extractfile(members[name]))

        def check_blob(desc):
            digest = desc['digest']
            algo, _, hexd = digest.partition(':')
            name = f'blobs/{algo}/{hexd}'
            if algo != 'sha256' or name not in members:
                raise Failure(f'{a.archive}: blob {digest} is missing')
            h, size = hashlib.sha256(), 0
            f = tar.extractfile(members[name])
            for chunk in iter(lambda: f.read(CHUNK), b''):
                h.update(chunk)
                size += len(chunk)
            if h.hexdigest() != hexd or size != desc['size']:
                raise Failure(f'{a.archive}: blob {digest} does not match its digest or size')
            return name

        if read_json('oci-layout').get('imageLayoutVersion') != '1.0.0':
            raise Failure(f'{a.archive}: not an OCI image layout 1.0.0')
        manifests = read_json('index.json').get('manifests', [])
        if len(manifests) != 1:
            raise Failure(f'{a.archive}: expected one image, found {len(manifests)}')
        entry = manifests[0]
        ref = entry.get('annotations', {}).get(ANN_CONTAINERD)
        if not ref or entry['annotations'].get(ANN_REF) != ref:
            raise Failure(f'{a.archive}: the image has no (or inconsistent) reference annotations')
        if a.ref and ref != a.ref:
            raise Failure(f'{a.archive}: the image is {ref}, expected {a.ref}')
        if entry['mediaType'] != MT_MANIFEST:
            raise Failure(f'{a.archive}: the image is {entry["mediaType"]}, not an OCI manifest')
        manifest = json.load(tar.extractfile(members[check_blob(entry)]))
        if manifest['config']['mediaType'] != MT_CONFIG:
            raise Failure(f'{a.archive}: config media type {manifest["config"]["mediaType"]}')
        config = json.load(tar.extractfile(members[check_blob(manifest['config'])]))
        for layer in manifest['layers']:
            if layer['mediaType'] not in LAYER_TYPES:
                raise Failure(f'{a.archive}: layer media type {layer["mediaType"]}')
            check_blob(layer)
        if len(config['rootfs']['diff_ids']) != len(manifest['layers']):
            raise Failure(f'{a.archive}: config lists {len(config["rootfs"]["diff_ids"])} layers, '
                          f'manifest {len(manifest["layers"])}')
    c = config.get('config', {})
    print(json.dumps({
        'ref': ref, 'manifest': entry['digest'], 'layers': len(manifest['layers']),
        'layerBytes': sum(l['size'] for l in manifest['layers']),
        'user': c.get('User', ''), 'entrypoint': c.get('Entrypoint'), 'cmd': c.get('Cmd'),
        'labels': c.get('Labels', {}),
    }, sort_keys=True))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='command', required=True)
    p = sub.add_parser('pack')
    p.add_argument('layer')
    p.add_argument('--ref', required=True)
    p.add_argument('--out', required=True)
    p.add_argument('--env', action='append', default=[])
    p.add_argument('--entrypoint')
    p.add_argument('--cmd')
    p.add_argument('--user')
    p.add_argument('--workdir', default='/')
    p.add_argument('--label', action='append', default=[])
    p.add_argument('--expose', action='append', default=[])
    p.add_argument('--created-by', default='tools/node-tier/images/build.sh')
    p.set_defaults(run=cmd_pack)
    r = sub.add_parser('retag')
    r.add_argument('layout')
    r.add_argument('--ref', required=True)
    r.add_argument('--out', required=True)
    r.set_defaults(run=cmd_retag)
    v = sub.add_parser('verify')
    v.add_argument('archive')
    v.add_argument('--ref')
    v.set_defaults(run=cmd_verify)
    a = ap.parse_args()
    try:
        a.run(a)
    except (Failure, OSError, ValueError, KeyError, tarfile.TarError) as e:
        print(f'oci.py {a.command}: {e}', file=sys.stderr)
        sys.exit(1)


if __name__ == '__main__':
    main()
