//! Real-world input: every class of JDK 17's and JDK 25's `java.base`, and
//! every jar in /usr/share/java, must parse with no failure and satisfy the
//! decoded-code invariants; a handful of classes are cross-checked against
//! `javap` (member counts and the pc of every instruction).

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::*;
use lockstep_classfile::{access, parse, parse_with, Constant, ParseOptions};

/// Parses everything, checks invariants and index-only agreement, and
/// returns (classes, methods, instructions, warnings).
fn parse_all(classes: &[(String, Vec<u8>)]) -> (usize, usize, usize, usize) {
    let mut failures = Vec::new();
    let (mut methods, mut insns, mut warnings) = (0, 0, 0);
    for (name, bytes) in classes {
        match parse(bytes) {
            Ok(c) => {
                methods += c.methods.len();
                warnings += c.warnings.len();
                insns += check_invariants(name, &c);
                // Index-only mode reads the same members and tables.
                let quick = parse_with(bytes, &ParseOptions::index_only())
                    .unwrap_or_else(|e| panic!("{name}: index-only parse failed: {e}"));
                assert_eq!(quick.methods.len(), c.methods.len(), "{name}");
                let (qe, ce) = (&quick.constant_pool.entries, &c.constant_pool.entries);
                assert_eq!(qe.len(), ce.len(), "{name}");
                for (a, b) in qe.iter().zip(ce) {
                    // NaN constants are not equal to themselves.
                    assert!(a == b || format!("{a:?}") == format!("{b:?}"), "{name}");
                }
                for (q, m) in quick.methods.iter().zip(&c.methods) {
                    assert_eq!(q.name, m.name);
                    let (qc, mc) = (q.code.as_ref(), m.code.as_ref());
                    assert_eq!(qc.map(|c| c.code_length), mc.map(|c| c.code_length));
                    assert_eq!(
                        qc.map(|c| &c.exception_table),
                        mc.map(|c| &c.exception_table)
                    );
                    assert!(qc.is_none_or(|c| c.insns.is_empty()));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} classes failed:\n{}",
        failures.len(),
        classes.len(),
        failures.join("\n")
    );
    (classes.len(), methods, insns, warnings)
}

fn find<'a>(classes: &'a [(String, Vec<u8>)], suffix: &str) -> &'a [u8] {
    &classes
        .iter()
        .find(|(n, _)| n.ends_with(suffix))
        .unwrap_or_else(|| panic!("{suffix} not found"))
        .1
}

/// Compares member counts and every instruction pc with `javap -c -p`.
fn cross_check_with_javap(javap: &Path, classes: &[(&str, &[u8])]) {
    let names: Vec<&str> = classes.iter().map(|c| c.0).collect();
    let listings = javap_pcs_many(javap, &names);
    for ((class_name, bytes), (javap_methods, javap_pcs)) in classes.iter().zip(listings) {
        let c = parse(bytes).unwrap();
        assert_eq!(
            c.methods.len(),
            javap_methods,
            "{class_name}: method count vs javap"
        );
        let ours: Vec<Vec<u32>> = c
            .methods
            .iter()
            .filter_map(|m| m.code.as_ref())
            .map(|code| code.insns.iter().map(|(pc, _)| *pc).collect())
            .collect();
        assert_eq!(
            ours.len(),
            javap_pcs.len(),
            "{class_name}: methods with code"
        );
        for (i, (a, b)) in ours.iter().zip(&javap_pcs).enumerate() {
            assert_eq!(a, b, "{class_name}: pcs of code #{i} differ from javap");
        }
    }
}

const CROSS_CHECKED: &[&str] = &[
    "java.lang.String",
    "java.util.HashMap",
    "java.util.concurrent.ConcurrentHashMap",
    "java.lang.Character",
    "java.util.regex.Pattern",
    "sun.invoke.util.Wrapper",
    "java.lang.invoke.MethodHandleImpl",
];

#[test]
fn jdk17_java_base_parses() {
    let path = Path::new(JDK17_JMOD);
    if !path.exists() {
        println!("note: {JDK17_JMOD} not found; skipping");
        return;
    }
    let classes = archive_classes(path);
    let (n, methods, insns, warnings) = parse_all(&classes);
    println!("JDK 17 java.base: {n} classes, {methods} methods, {insns} instructions, {warnings} warnings");
    assert!(n > 6000, "only {n} classes in java.base");
    assert_eq!(warnings, 0, "javac output should produce no warnings");

    // Known facts.
    let object = parse(find(&classes, "classes/java/lang/Object.class")).unwrap();
    assert_eq!(&*object.this_class, "java/lang/Object");
    assert_eq!(object.super_class, None);
    assert_eq!(object.major_version, 61);
    let hash = object
        .methods
        .iter()
        .find(|m| &*m.name == "hashCode")
        .unwrap();
    assert!(hash.access_flags & access::NATIVE != 0 && hash.code.is_none());

    let module = parse(find(&classes, "classes/module-info.class")).unwrap();
    assert!(module.access_flags & access::MODULE != 0);
    assert_eq!(module.super_class, None);

    let thread = parse(find(&classes, "classes/java/lang/Thread.class")).unwrap();
    let start = thread.methods.iter().find(|m| &*m.name == "start").unwrap();
    assert!(start.access_flags & access::SYNCHRONIZED != 0);

    let chm = parse(find(
        &classes,
        "java/util/concurrent/ConcurrentHashMap.class",
    ))
    .unwrap();
    let volatile_fields = chm
        .fields
        .iter()
        .filter(|f| f.access_flags & access::VOLATILE != 0)
        .count();
    assert!(
        volatile_fields >= 5,
        "ConcurrentHashMap volatile fields: {volatile_fields}"
    );
    assert!(chm
        .nest_members
        .iter()
        .any(|m| &**m == "java/util/concurrent/ConcurrentHashMap$Node"));

    // Independent check against javap for a few classes.
    let javap = Path::new("/usr/lib/jvm/java-17-openjdk-amd64/bin/javap");
    if javap.exists() {
        let list: Vec<(&str, &[u8])> = CROSS_CHECKED
            .iter()
            .map(|c| {
                (
                    *c,
                    find(&classes, &format!("classes/{}.class", c.replace('.', "/"))),
                )
            })
            .collect();
        cross_check_with_javap(javap, &list);
    } else {
        println!("note: no JDK 17 javap; skipping the javap cross-check");
    }
}

#[test]
fn jdk25_java_base_parses() {
    let Some(classes) = jdk25_java_base() else {
        println!("note: no JDK 25 at {JDK25_HOME}; skipping");
        return;
    };
    let (n, methods, insns, warnings) = parse_all(&classes);
    println!("JDK 25 java.base: {n} classes, {methods} methods, {insns} instructions, {warnings} warnings");
    assert!(n > 6000);
    assert_eq!(warnings, 0);
    let versions: BTreeSet<u16> = classes
        .iter()
        .map(|(_, b)| parse(b).unwrap().major_version)
        .collect();
    assert!(versions.contains(&69), "versions seen: {versions:?}");

    let javap = Path::new(JDK25_HOME).join("bin/javap");
    if javap.exists() {
        let list: Vec<(&str, &[u8])> = CROSS_CHECKED
            .iter()
            .map(|c| {
                (
                    *c,
                    find(
                        &classes,
                        &format!("java.base/{}.class", c.replace('.', "/")),
                    ),
                )
            })
            .collect();
        cross_check_with_javap(&javap, &list);
    }
}

#[test]
fn every_jar_in_usr_share_java() {
    let Ok(dir) = std::fs::read_dir("/usr/share/java") else {
        println!("note: no /usr/share/java; skipping");
        return;
    };
    // Many entries are version-less symlinks to the same jar.
    let mut jars: BTreeSet<std::path::PathBuf> = BTreeSet::new();
    for e in dir.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "jar") {
            if let Ok(real) = p.canonicalize() {
                jars.insert(real);
            }
        }
    }
    if jars.is_empty() {
        println!("note: no jars in /usr/share/java; skipping");
        return;
    }
    let (mut classes, mut methods, mut insns, mut warnings) = (0, 0, 0, 0);
    let mut versions = BTreeSet::new();
    for jar in &jars {
        let list = archive_classes(jar);
        for (_, b) in &list {
            // Multi-release jars may hold classes newer than we read.
            if let Ok(c) = parse(b) {
                versions.insert(c.major_version);
            }
        }
        let (n, m, i, w) = parse_all(&list);
        classes += n;
        methods += m;
        insns += i;
        warnings += w;
    }
    println!(
        "{} jars: {classes} classes, {methods} methods, {insns} instructions, {warnings} warnings, majors {versions:?}",
        jars.len()
    );
}

#[test]
fn ldc_targets_are_loadable_in_java_base() {
    // Spot-check the operand-kind promise on real code: every Ldc index
    // names a loadable constant, every GetField a FieldRef.
    let path = Path::new(JDK17_JMOD);
    if !path.exists() {
        return;
    }
    let classes = archive_classes(path);
    for (name, bytes) in classes.iter().take(500) {
        let c = parse(bytes).unwrap();
        for code in c.methods.iter().filter_map(|m| m.code.as_ref()) {
            for (_, insn) in &code.insns {
                match insn {
                    lockstep_classfile::Insn::Ldc(i) => assert!(
                        matches!(
                            c.constant_pool.get(*i),
                            Some(
                                Constant::Integer(_)
                                    | Constant::Float(_)
                                    | Constant::Long(_)
                                    | Constant::Double(_)
                                    | Constant::String(_)
                                    | Constant::Class(_)
                                    | Constant::MethodType(_)
                                    | Constant::MethodHandle { .. }
                                    | Constant::Dynamic { .. }
                            )
                        ),
                        "{name}"
                    ),
                    lockstep_classfile::Insn::GetField(i) => {
                        assert!(c.constant_pool.field_ref(*i).is_some(), "{name}")
                    }
                    _ => {}
                }
            }
        }
    }
}
