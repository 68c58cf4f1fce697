//! Shared test helpers: reading classes out of jmods/jars, compiling
//! fixtures with javac, cross-checking against javap, and a tiny class-file
//! builder for hand-assembled (and deliberately broken) classes.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const JDK17_JMOD: &str = "/usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod";
pub const JDK25_HOME: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

/// `(entry name, bytes)` of every `.class` in a jmod (4-byte `JM\1\0`
/// header, then a zip) or a jar.
pub fn archive_classes(path: &Path) -> Vec<(String, Vec<u8>)> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let zip_bytes = if data.starts_with(b"JM\x01\x00") {
        &data[4..]
    } else {
        &data[..]
    };
    let mut zip = zip::ZipArchive::new(Cursor::new(zip_bytes))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).expect("zip entry");
        let name = f.name().expect("entry name").into_owned();
        if !name.ends_with(".class") {
            continue;
        }
        let mut buf = Vec::new();
        f.read_to_end(&mut buf).expect("read entry");
        out.push((name, buf));
    }
    out
}

/// Every `.class` file under `dir`, sorted by path.
pub fn dir_classes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir") {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "class") {
                let bytes = std::fs::read(&p).expect("read class");
                out.push((p.display().to_string(), bytes));
            }
        }
    }
    out.sort();
    out
}

/// A fresh scratch directory for one test.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("lockstep_classfile")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Compiles `sources` (paths) with `javac -g` into `out`; panics with
/// javac's output on failure.
pub fn javac(javac: &Path, release: u32, sources: &[PathBuf], out: &Path) {
    let output = Command::new(javac)
        .arg("-g")
        .arg("-nowarn")
        .arg("--release")
        .arg(release.to_string())
        .arg("-d")
        .arg(out)
        .args(sources)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} (javac is required for these tests): {e}",
                javac.display()
            )
        });
    assert!(
        output.status.success(),
        "javac failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Source of `fx/Generated.java`: a method with more than 256 locals
/// (wide loads/stores, wide iinc), more than 256 constants (ldc_w), and a
/// loop body over 32 KiB (goto_w).
pub fn generated_source() -> String {
    let mut s = String::from("package fx;\npublic class Generated {\n");
    s.push_str("    static int manyLocals(int a) {\n        int v0 = a;\n");
    for i in 1..300 {
        s.push_str(&format!("        int v{i} = v{} + {i};\n", i - 1));
    }
    s.push_str(
        "        v299 += 1000;\n        long w = v299;\n        double dd = w;\n        Object ob = null;\n        float ff = 1f;\n        return v299 + (int) w + (int) dd + (ob == null ? 0 : 1) + (int) ff;\n    }\n",
    );
    s.push_str("    static int manyConstants() {\n        int n = 0;\n");
    for i in 0..300 {
        s.push_str(&format!("        n += \"s{i}\".length();\n"));
    }
    s.push_str("        return n;\n    }\n");
    s.push_str("    static int huge(int[] a) {\n        int x = 0;\n        for (int i = 0; i < a.length; i++) {\n");
    for i in 0..3000 {
        s.push_str(&format!(
            "            x = x * 31 + a[i] ^ {};\n",
            i + 100_000
        ));
    }
    s.push_str("        }\n        return x;\n    }\n}\n");
    s
}

/// Compiles the fixtures with the given javac and release into a fresh
/// directory: `Everything.java` (release ≥ 17 only), `Legacy8.java` and the
/// generated class.
pub fn compile_fixtures(javac_path: &Path, release: u32, tag: &str) -> PathBuf {
    let out = scratch_dir(&format!("fixtures-{tag}"));
    let src = out.join("src/fx");
    std::fs::create_dir_all(&src).expect("mkdir");
    let generated = src.join("Generated.java");
    std::fs::write(&generated, generated_source()).expect("write Generated.java");
    let mut sources = vec![generated, fixtures_dir().join("fx/Legacy8.java")];
    if release >= 17 {
        sources.push(fixtures_dir().join("fx/Everything.java"));
    }
    let classes = out.join("classes");
    javac(javac_path, release, &sources, &classes);
    classes
}

/// Per method with code, in class-file order: the pcs of its instructions
/// as `javap -c -p` prints them. Returns `(methods listed, pcs)`.
pub fn javap_pcs(javap: &Path, class: &str) -> (usize, Vec<Vec<u32>>) {
    javap_pcs_many(javap, &[class]).pop().expect("one class")
}

/// [`javap_pcs`] for several classes with one javap run (a JVM start costs
/// about a second). Every class must have a `SourceFile` attribute: javap's
/// "Compiled from" line is what separates the classes in its output.
pub fn javap_pcs_many(javap: &Path, classes: &[&str]) -> Vec<(usize, Vec<Vec<u32>>)> {
    let output = Command::new(javap)
        .args(["-c", "-p"])
        .args(classes)
        .output()
        .expect("run javap");
    assert!(output.status.success(), "javap {classes:?} failed");
    let text = String::from_utf8_lossy(&output.stdout);
    let mut out: Vec<(usize, Vec<Vec<u32>>)> = Vec::new();
    for line in text.lines() {
        if line.starts_with("Compiled from") {
            out.push((0, Vec::new()));
            continue;
        }
        let Some((methods, all)) = out.last_mut() else {
            continue;
        };
        // Member declarations are indented by exactly two spaces.
        if let Some(decl) = line.strip_prefix("  ") {
            if !decl.starts_with(' ')
                && decl.ends_with(';')
                && (decl.contains('(') || decl == "static {};")
            {
                *methods += 1;
            }
        }
        if line.trim() == "Code:" {
            all.push(Vec::new());
            continue;
        }
        // "   12: invokevirtual #3 ..." — a pc then a mnemonic (switch-table
        // lines have a number after the colon and are skipped).
        let t = line.trim_start();
        if let Some((pc, rest)) = t.split_once(": ") {
            if let (Ok(pc), Some(c)) = (pc.parse::<u32>(), rest.chars().next()) {
                if c.is_ascii_lowercase() {
                    if let Some(cur) = all.last_mut() {
                        cur.push(pc);
                    }
                }
            }
        }
    }
    assert_eq!(
        out.len(),
        classes.len(),
        "javap output did not split into one part per class"
    );
    out
}

/// The JDK 25 java.base classes: from its jmod if the JDK ships one, else
/// extracted from its runtime image with `jimage` (JDK 24+ may ship without
/// jmods). `None` if there is no JDK 25 here.
pub fn jdk25_java_base() -> Option<Vec<(String, Vec<u8>)>> {
    let home = Path::new(JDK25_HOME);
    let jmod = home.join("jmods/java.base.jmod");
    if jmod.exists() {
        return Some(archive_classes(&jmod));
    }
    let jimage = home.join("bin/jimage");
    let modules = home.join("lib/modules");
    if !jimage.exists() || !modules.exists() {
        return None;
    }
    let dir = scratch_dir("jdk25-java.base");
    let status = Command::new(&jimage)
        .arg("extract")
        .arg("--include")
        .arg("regex:/java.base/.*\\.class")
        .arg("--dir")
        .arg(&dir)
        .arg(&modules)
        .status()
        .ok()?;
    if !status.success() {
        return None;
    }
    Some(dir_classes(&dir))
}

// ---------------------------------------------------------------------------
// A minimal class-file writer for hand-assembled classes.

pub struct ClassBuilder {
    pub major: u16,
    pub minor: u16,
    pool: Vec<u8>,
    next: u16,
    utf8s: HashMap<Vec<u8>, u16>,
    pub access: u16,
    pub this_class: u16,
    pub super_class: u16,
    pub interfaces: Vec<u16>,
    pub fields: Vec<Vec<u8>>,
    pub methods: Vec<Vec<u8>>,
    pub attributes: Vec<Vec<u8>>,
}

pub fn u16b(v: u16) -> [u8; 2] {
    v.to_be_bytes()
}

pub fn u32b(v: u32) -> [u8; 4] {
    v.to_be_bytes()
}

impl ClassBuilder {
    pub fn new(name: &str, major: u16) -> Self {
        let mut b = ClassBuilder {
            major,
            minor: 0,
            pool: Vec::new(),
            next: 1,
            utf8s: HashMap::new(),
            access: 0x0021,
            this_class: 0,
            super_class: 0,
            interfaces: Vec::new(),
            fields: Vec::new(),
            methods: Vec::new(),
            attributes: Vec::new(),
        };
        b.this_class = b.class(name);
        b.super_class = b.class("java/lang/Object");
        b
    }

    /// Appends raw entry bytes occupying `slots` slots; returns its index.
    pub fn raw_entry(&mut self, bytes: &[u8], slots: u16) -> u16 {
        let idx = self.next;
        self.pool.extend_from_slice(bytes);
        self.next += slots;
        idx
    }

    pub fn raw_utf8(&mut self, bytes: &[u8]) -> u16 {
        if let Some(&i) = self.utf8s.get(bytes) {
            return i;
        }
        let mut e = vec![1];
        e.extend_from_slice(&u16b(bytes.len() as u16));
        e.extend_from_slice(bytes);
        let i = self.raw_entry(&e, 1);
        self.utf8s.insert(bytes.to_vec(), i);
        i
    }

    pub fn utf8(&mut self, s: &str) -> u16 {
        self.raw_utf8(s.as_bytes())
    }

    fn one(&mut self, tag: u8, a: u16) -> u16 {
        let mut e = vec![tag];
        e.extend_from_slice(&u16b(a));
        self.raw_entry(&e, 1)
    }

    fn two(&mut self, tag: u8, a: u16, b: u16) -> u16 {
        let mut e = vec![tag];
        e.extend_from_slice(&u16b(a));
        e.extend_from_slice(&u16b(b));
        self.raw_entry(&e, 1)
    }

    pub fn class(&mut self, name: &str) -> u16 {
        let n = self.utf8(name);
        self.one(7, n)
    }

    pub fn string(&mut self, s: &str) -> u16 {
        let n = self.utf8(s);
        self.one(8, n)
    }

    pub fn int(&mut self, v: i32) -> u16 {
        let mut e = vec![3];
        e.extend_from_slice(&v.to_be_bytes());
        self.raw_entry(&e, 1)
    }

    pub fn long(&mut self, v: i64) -> u16 {
        let mut e = vec![5];
        e.extend_from_slice(&v.to_be_bytes());
        self.raw_entry(&e, 2)
    }

    pub fn nat(&mut self, name: &str, desc: &str) -> u16 {
        let (n, d) = (self.utf8(name), self.utf8(desc));
        self.two(12, n, d)
    }

    pub fn member(&mut self, tag: u8, class: &str, name: &str, desc: &str) -> u16 {
        let c = self.class(class);
        let nt = self.nat(name, desc);
        self.two(tag, c, nt)
    }

    pub fn field_ref(&mut self, class: &str, name: &str, desc: &str) -> u16 {
        self.member(9, class, name, desc)
    }

    pub fn method_ref(&mut self, class: &str, name: &str, desc: &str) -> u16 {
        self.member(10, class, name, desc)
    }

    pub fn imethod_ref(&mut self, class: &str, name: &str, desc: &str) -> u16 {
        self.member(11, class, name, desc)
    }

    /// An attribute: name index, u32 length, body.
    pub fn attribute(&mut self, name: &str, body: &[u8]) -> Vec<u8> {
        let mut a = u16b(self.utf8(name)).to_vec();
        a.extend_from_slice(&u32b(body.len() as u32));
        a.extend_from_slice(body);
        a
    }

    /// A `Code` attribute.
    pub fn code(
        &mut self,
        max_stack: u16,
        max_locals: u16,
        code: &[u8],
        handlers: &[(u16, u16, u16, u16)],
        attrs: &[Vec<u8>],
    ) -> Vec<u8> {
        let mut body = Vec::new();
        body.extend_from_slice(&u16b(max_stack));
        body.extend_from_slice(&u16b(max_locals));
        body.extend_from_slice(&u32b(code.len() as u32));
        body.extend_from_slice(code);
        body.extend_from_slice(&u16b(handlers.len() as u16));
        for &(s, e, h, c) in handlers {
            for v in [s, e, h, c] {
                body.extend_from_slice(&u16b(v));
            }
        }
        body.extend_from_slice(&u16b(attrs.len() as u16));
        for a in attrs {
            body.extend_from_slice(a);
        }
        self.attribute("Code", &body)
    }

    fn member_info(&mut self, access: u16, name: &str, desc: &str, attrs: Vec<Vec<u8>>) -> Vec<u8> {
        let mut m = u16b(access).to_vec();
        m.extend_from_slice(&u16b(self.utf8(name)));
        m.extend_from_slice(&u16b(self.utf8(desc)));
        m.extend_from_slice(&u16b(attrs.len() as u16));
        for a in attrs {
            m.extend_from_slice(&a);
        }
        m
    }

    pub fn method(&mut self, access: u16, name: &str, desc: &str, attrs: Vec<Vec<u8>>) {
        let m = self.member_info(access, name, desc, attrs);
        self.methods.push(m);
    }

    pub fn field(&mut self, access: u16, name: &str, desc: &str, attrs: Vec<Vec<u8>>) {
        let f = self.member_info(access, name, desc, attrs);
        self.fields.push(f);
    }

    /// Adds `static m()V` with the given code (max_stack 10, max_locals 10).
    pub fn method_with_code(&mut self, code: &[u8], handlers: &[(u16, u16, u16, u16)]) {
        let c = self.code(10, 10, code, handlers, &[]);
        self.method(0x0009, "m", "()V", vec![c]);
    }

    pub fn build(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&u32b(0xCAFE_BABE));
        out.extend_from_slice(&u16b(self.minor));
        out.extend_from_slice(&u16b(self.major));
        out.extend_from_slice(&u16b(self.next));
        out.extend_from_slice(&self.pool);
        out.extend_from_slice(&u16b(self.access));
        out.extend_from_slice(&u16b(self.this_class));
        out.extend_from_slice(&u16b(self.super_class));
        out.extend_from_slice(&u16b(self.interfaces.len() as u16));
        for i in &self.interfaces {
            out.extend_from_slice(&u16b(*i));
        }
        for list in [&self.fields, &self.methods] {
            out.extend_from_slice(&u16b(list.len() as u16));
            for m in list.iter() {
                out.extend_from_slice(m);
            }
        }
        out.extend_from_slice(&u16b(self.attributes.len() as u16));
        for a in &self.attributes {
            out.extend_from_slice(a);
        }
        out
    }
}

/// A class with one static method `m()V` whose code is `code`.
pub fn class_with_code(major: u16, code: &[u8]) -> Vec<u8> {
    let mut b = ClassBuilder::new("T", major);
    b.method_with_code(code, &[]);
    b.build()
}

// ---------------------------------------------------------------------------
// Invariants every successfully parsed class must satisfy.

use lockstep_classfile::{ClassFile, Insn};

/// Branch and switch targets of one instruction.
pub fn targets(insn: &Insn) -> Vec<u32> {
    match insn {
        Insn::If(_, t) | Insn::Goto(t) | Insn::Jsr(t) => vec![*t],
        Insn::TableSwitch {
            default, targets, ..
        } => std::iter::once(*default)
            .chain(targets.iter().copied())
            .collect(),
        Insn::LookupSwitch { default, pairs } => std::iter::once(*default)
            .chain(pairs.iter().map(|p| p.1))
            .collect(),
        _ => Vec::new(),
    }
}

/// Checks what the parser promises about decoded code; returns the number
/// of instructions.
pub fn check_invariants(name: &str, c: &ClassFile) -> usize {
    let mut n = 0;
    for m in &c.methods {
        let Some(code) = &m.code else { continue };
        let what = format!("{name} {}{}", m.name, m.descriptor);
        assert!(code.code_length > 0 && code.code_length <= 65535, "{what}");
        assert!(!code.insns.is_empty(), "{what}: no instructions");
        assert_eq!(code.insns[0].0, 0, "{what}: first pc");
        assert!(
            code.insns.windows(2).all(|w| w[0].0 < w[1].0),
            "{what}: pcs not increasing"
        );
        assert!(
            code.insns.last().unwrap().0 < code.code_length,
            "{what}: last pc"
        );
        let starts: std::collections::HashSet<u32> = code.insns.iter().map(|i| i.0).collect();
        for (pc, insn) in &code.insns {
            for t in targets(insn) {
                assert!(starts.contains(&t), "{what}: target {t} of pc {pc}");
            }
            if let Insn::TableSwitch {
                low, high, targets, ..
            } = insn
            {
                assert_eq!(
                    targets.len() as i64,
                    *high as i64 - *low as i64 + 1,
                    "{what}"
                );
            }
        }
        for h in &code.exception_table {
            assert!(starts.contains(&h.start_pc), "{what}: handler start");
            assert!(starts.contains(&h.handler_pc), "{what}: handler pc");
            assert!(
                h.end_pc == code.code_length || starts.contains(&h.end_pc),
                "{what}: end"
            );
            assert!(h.start_pc < h.end_pc, "{what}");
        }
        assert!(code
            .line_numbers
            .windows(2)
            .all(|w| w[0].start_pc <= w[1].start_pc));
        assert!(code
            .line_numbers
            .iter()
            .all(|l| l.start_pc < code.code_length));
        n += code.insns.len();
    }
    n
}
