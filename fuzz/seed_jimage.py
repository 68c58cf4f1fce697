#!/usr/bin/env python3
"""Writes small synthetic JDK runtime images ("jimage", lib/modules) as fuzz
seeds, following the layout lockstep_classpath/src/jimage.rs reads (and its
test builder `tiny_image`): header, perfect-hash redirect table, offsets,
location attribute streams, strings, resources. Usage:
    seed_jimage.py OUT_DIR [JMOD]
JMOD (java.base.jmod) supplies a few real class files as resource bytes."""
import os, struct, sys, zipfile, zlib

MAGIC = 0xCAFEDADA
HASH_MULTIPLIER = 0x01000193
COMPRESSED_MAGIC = 0xCAFEFAFA


def name_hash(name: bytes, seed: int) -> int:
    h = seed & 0xFFFFFFFF
    for b in name:
        h = ((h * HASH_MULTIPLIER) & 0xFFFFFFFF) ^ b
    return h & 0x7FFFFFFF


def full_name(module, parent, base, ext):
    s = ''
    if module:
        s += '/' + module + '/'
    if parent:
        s += parent + '/'
    s += base
    if ext:
        s += '.' + ext
    return s


class Strings:
    def __init__(self):
        self.data = bytearray(b'\0')  # offset 0 = ""
        self.at = {'': 0}

    def add(self, s):
        if s not in self.at:
            self.at[s] = len(self.data)
            self.data += s.encode() + b'\0'
        return self.at[s]


def compressed(plain, name_off, endian, decompressor='zip', layers=1):
    """A resource behind `layers` stacked compression headers."""
    e = '<' if endian == 'little' else '>'
    data = plain
    for _ in range(layers):
        payload = zlib.compress(data, 9) if decompressor == 'zip' else data
        head = struct.pack(e + 'IQQIIB', COMPRESSED_MAGIC, len(payload), len(data), name_off, 0, 1)
        data = head + payload
    return data


def image(resources, endian='little', extra_strings=(), compress=None):
    """resources: [(module, parent, base, ext, bytes)]; compress(i, plain,
    strings) may return stored bytes (compressed) for resource i, else None."""
    e = '<' if endian == 'little' else '>'
    strings = Strings()
    for s in extra_strings:
        strings.add(s)
    n = len(resources)
    locations = bytearray()
    location_of, names = [], []
    content = bytearray()
    for i, (module, parent, base, ext, data) in enumerate(resources):
        names.append(full_name(module, parent, base, ext).encode())
        stored = compress(i, data, strings) if compress else None
        attrs = [(1, strings.add(module)), (2, strings.add(parent)),
                 (3, strings.add(base)), (4, strings.add(ext)),
                 (5, len(content))]
        if stored is not None:
            attrs.append((6, len(stored)))
        attrs.append((7, len(data)))
        location_of.append(len(locations))
        for kind, value in attrs:
            vb = value.to_bytes(8, 'big').lstrip(b'\0') or b'\0'
            locations.append((kind << 3) | (len(vb) - 1))
            locations += vb
        locations.append(0)
        content += stored if stored is not None else data
    # Perfect hash, as the JDK writer builds it: buckets with collisions get
    # a rehash seed, singletons a direct (negative) slot.
    bucket_of = lambda name, seed: name_hash(name, seed) % n
    buckets = [[] for _ in range(n)]
    for i, name in enumerate(names):
        buckets[bucket_of(name, HASH_MULTIPLIER)].append(i)
    redirect = [0] * n
    taken = [False] * n
    offsets = [0] * n
    for b in sorted(range(n), key=lambda b: -len(buckets[b])):
        members = buckets[b]
        if len(members) == 1:
            slot = taken.index(False)
            taken[slot] = True
            offsets[slot] = location_of[members[0]]
            redirect[b] = -1 - slot
        elif members:
            # Bounded: with an even table the low bit of a name's slot is
            # the same for every seed, so some name sets have no solution.
            for seed in range(1, 1 << 16):
                slots = [bucket_of(names[i], seed) for i in members]
                if len(set(slots)) == len(slots) and not any(taken[s] for s in slots):
                    break
            else:
                raise ValueError('no rehash seed for %r' % [names[i] for i in members])
            for i, s in zip(members, slots):
                taken[s] = True
                offsets[s] = location_of[i]
            redirect[b] = seed
    out = bytearray(struct.pack(e + '7I', MAGIC, 1 << 16, 0, n, n, len(locations), len(strings.data)))
    out += struct.pack(e + '%di' % n, *redirect)
    out += struct.pack(e + '%dI' % n, *offsets)
    out += locations + strings.data + content
    return bytes(out)


def main():
    out = sys.argv[1]
    jmod = sys.argv[2] if len(sys.argv) > 2 else None
    os.makedirs(out, exist_ok=True)
    real = []
    if jmod and os.path.exists(jmod):
        z = zipfile.ZipFile(jmod)
        for n in ['classes/java/lang/Runnable.class', 'classes/java/lang/Void.class',
                  'classes/java/util/concurrent/Callable.class', 'classes/java/lang/Object.class']:
            if n in z.namelist():
                parent, base = n[len('classes/'):-len('.class')].rsplit('/', 1)
                real.append(('java.base', parent, base, 'class', z.read(n)))
    basic = [
        ('java.base', 'java/lang', 'Object', 'class', b'\xCA\xFE\xBA\xBEobj'),
        ('java.base', '', 'module-info', 'class', b'\xCA\xFE\xBA\xBEmi'),
        ('java.base', 'java/lang', 'uniName', 'dat', b'data'),
    ]
    many = [('mod', 'p%d' % (i % 7), 'C%d' % i, 'class', b'x' * (i % 5)) for i in range(60)]
    dirs = [('', 'packages', 'java.lang', '', b'\0\0\0\0\0\0\0\x08'),
            ('', 'modules', 'java.base', '', b''),
            ('java.base', 'java/lang', 'Thread', 'class', b'\xCA\xFE\xBA\xBEthr')]
    zipped = lambda i, plain, s: compressed(plain, s.add('zip'), 'little') if i % 2 == 0 else None
    zipped_be = lambda i, plain, s: compressed(plain, s.add('zip'), 'big')
    stacked = lambda i, plain, s: compressed(plain, s.add('zip'), 'little', layers=2)
    compact = lambda i, plain, s: compressed(plain, s.add('compact-cp'), 'little', 'compact-cp') if i == 0 else None
    seeds = {
        'basic-le': image(basic),
        'basic-be': image(basic, 'big'),
        'one': image(basic[:1]),
        'empty': image([]),
        'many-rehash': image(many),
        'dirs-and-class': image(dirs),
        'zip-compressed': image(basic + dirs, compress=zipped),
        'zip-compressed-be': image(basic, 'big', compress=zipped_be),
        'zip-stacked': image(basic, compress=stacked),
        'compact-cp': image(basic, compress=compact),
    }
    if real:
        seeds['real-classes'] = image(real)
        seeds['real-classes-zip'] = image(real, compress=lambda i, p, s: compressed(p, s.add('zip'), 'little'))
    for name, data in seeds.items():
        with open(os.path.join(out, 'synthetic-' + name), 'wb') as f:
            f.write(data)
    print(f'{len(seeds)} synthetic images in {out}')


if __name__ == '__main__':
    main()
