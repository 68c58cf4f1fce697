//! The runtime classes the probes call, emitted by lockstep's own writer.
//!
//! `lockstep/rt/Rec` holds only `static native` methods; the recorder
//! registers their implementations (JNI `RegisterNatives`) and defines the
//! class in the bootstrap loader, so classes of every loader resolve it.
//! `lockstep/rt/Task` wraps a task handed to an executor: it implements
//! `Runnable`, `Callable` and `Supplier`, and tells the recorder (`Rec.t`)
//! when the task begins (`0`) and ends (`1`) in the thread that runs it.
//! Both are class-file version 52 (Java 8), so they load on every JDK the
//! recorder supports; neither has a branch, so neither needs stack maps.

use crate::emit::Native;
use crate::pool::Pool;
use crate::raw::{put_u16, put_u32, write_attrs, RawAttr};
use crate::Error;

/// Internal name of the class whose natives the probes call.
pub const RT_CLASS: &str = "lockstep/rt/Rec";
/// Internal name of the hand-off wrapper.
pub const TASK_CLASS: &str = "lockstep/rt/Task";
/// Name and descriptor of the task-event native (`0` begin, `1` end).
pub const TASK_NATIVE: (&str, &str) = ("t", "(Ljava/lang/Object;I)V");

/// The natives of [`RT_CLASS`] as `(name, descriptor)`, for `RegisterNatives`.
pub fn natives() -> Vec<(&'static str, &'static str)> {
    let mut v: Vec<_> = [Native::E, Native::O, Native::OI, Native::OO, Native::W]
        .iter()
        .map(|n| n.name_and_descriptor())
        .collect();
    v.push(TASK_NATIVE);
    v
}

const PUBLIC: u16 = 0x0001;
const STATIC: u16 = 0x0008;
const FINAL: u16 = 0x0010;
const SUPER: u16 = 0x0020;
const NATIVE: u16 = 0x0100;

struct Method {
    access: u16,
    name: &'static str,
    descriptor: &'static str,
    /// `(max_stack, max_locals, code)`.
    code: Option<(u16, u16, Vec<u8>)>,
}

fn class_bytes(
    pool: Pool,
    this: u16,
    sup: u16,
    interfaces: &[u16],
    fields: &[(u16, u16, u16)],
    methods: &[(u16, u16, u16, Vec<RawAttr>)],
) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    put_u32(&mut out, 0xCAFE_BABE);
    put_u16(&mut out, 0);
    put_u16(&mut out, 52);
    put_u16(&mut out, pool.count());
    out.extend_from_slice(&pool.into_bytes());
    put_u16(&mut out, PUBLIC | FINAL | SUPER);
    put_u16(&mut out, this);
    put_u16(&mut out, sup);
    put_u16(&mut out, interfaces.len() as u16);
    interfaces.iter().for_each(|&i| put_u16(&mut out, i));
    put_u16(&mut out, fields.len() as u16);
    for &(a, n, d) in fields {
        put_u16(&mut out, a);
        put_u16(&mut out, n);
        put_u16(&mut out, d);
        put_u16(&mut out, 0);
    }
    put_u16(&mut out, methods.len() as u16);
    for (a, n, d, attrs) in methods {
        put_u16(&mut out, *a);
        put_u16(&mut out, *n);
        put_u16(&mut out, *d);
        write_attrs(&mut out, attrs)?;
    }
    put_u16(&mut out, 0);
    Ok(out)
}

fn build(
    name: &str,
    interfaces: &[&str],
    fields: &[(&str, &str)],
    methods: Vec<Method>,
    pool: Pool,
) -> Result<Vec<u8>, Error> {
    let mut pool = pool;
    let this = pool.class(name)?;
    let sup = pool.class("java/lang/Object")?;
    let ifaces = interfaces
        .iter()
        .map(|i| pool.class(i))
        .collect::<Result<Vec<_>, _>>()?;
    let fields = fields
        .iter()
        .map(|(n, d)| Ok((PUBLIC | FINAL, pool.utf8(n)?, pool.utf8(d)?)))
        .collect::<Result<Vec<_>, Error>>()?;
    let code_name = pool.utf8("Code")?;
    let mut ms = Vec::new();
    for m in methods {
        let n = pool.utf8(m.name)?;
        let d = pool.utf8(m.descriptor)?;
        let mut attrs = Vec::new();
        if let Some((stack, locals, code)) = m.code {
            let mut body = Vec::new();
            put_u16(&mut body, stack);
            put_u16(&mut body, locals);
            put_u32(&mut body, code.len() as u32);
            body.extend_from_slice(&code);
            put_u16(&mut body, 0);
            put_u16(&mut body, 0);
            attrs.push(RawAttr {
                name: code_name,
                body,
            });
        }
        ms.push((m.access, n, d, attrs));
    }
    class_bytes(pool, this, sup, &ifaces, &fields, &ms)
}

/// The bytes of [`RT_CLASS`].
pub fn rec_class() -> Result<Vec<u8>, Error> {
    let methods = natives()
        .into_iter()
        .map(|(name, descriptor)| Method {
            access: PUBLIC | STATIC | NATIVE,
            name,
            descriptor,
            code: None,
        })
        .collect();
    build(RT_CLASS, &[], &[], methods, Pool::continuing(1, Vec::new()))
}

/// A stand-in for [`RT_CLASS`] whose methods are plain Java no-ops
/// (`w` returns the task unwrapped): probed classes run and verify without
/// the recorder, which is how the rewriter is tested on its own.
pub fn rec_class_stub() -> Result<Vec<u8>, Error> {
    let methods = natives()
        .into_iter()
        .map(|(name, descriptor)| {
            let locals = crate::emit::signature(descriptor)
                .map(|(p, _)| p.iter().map(|k| crate::emit::slots(*k)).sum::<u16>())
                .unwrap_or(3);
            let code = if descriptor.ends_with(")V") {
                vec![0xb1]
            } else {
                vec![0x2b, 0xb0]
            };
            Method {
                access: PUBLIC | STATIC,
                name,
                descriptor,
                code: Some((1, locals, code)),
            }
        })
        .collect();
    build(RT_CLASS, &[], &[], methods, Pool::continuing(1, Vec::new()))
}

/// The bytes of [`TASK_CLASS`].
pub fn task_class() -> Result<Vec<u8>, Error> {
    let mut pool = Pool::continuing(1, Vec::new());
    let object_init = pool.method("java/lang/Object", "<init>", "()V", false)?;
    let task_field = pool.field(TASK_CLASS, "task", "Ljava/lang/Object;")?;
    let t = pool.method(RT_CLASS, TASK_NATIVE.0, TASK_NATIVE.1, false)?;
    let mut iface = |class: &str, name: &str, desc: &str| -> Result<(u16, u16), Error> {
        Ok((pool.class(class)?, pool.method(class, name, desc, true)?))
    };
    let [run, call, get] =
        crate::plan::WRAPPABLE.map(|e| iface(e.interface, e.name(), e.descriptor()));
    let (run, call, get) = (run?, call?, get?);

    // aload_0; aload_1; putfield task; aload_0; invokespecial Object.<init>; return
    let mut init = vec![0x2a, 0x2b, 0xb5];
    init.extend_from_slice(&task_field.to_be_bytes());
    init.extend_from_slice(&[0x2a, 0xb7]);
    init.extend_from_slice(&object_init.to_be_bytes());
    init.push(0xb1);

    // t(this, 0); ((I) task).m(); t(this, 1); return (the result, if any)
    let body = |(class, method): (u16, u16), returns: bool| {
        let mut c = vec![0x2a, 0x03, 0xb8];
        c.extend_from_slice(&t.to_be_bytes());
        c.extend_from_slice(&[0x2a, 0xb4]);
        c.extend_from_slice(&task_field.to_be_bytes());
        c.push(0xc0);
        c.extend_from_slice(&class.to_be_bytes());
        c.push(0xb9);
        c.extend_from_slice(&method.to_be_bytes());
        c.extend_from_slice(&[1, 0]);
        c.extend_from_slice(&[0x2a, 0x04, 0xb8]);
        c.extend_from_slice(&t.to_be_bytes());
        c.push(if returns { 0xb0 } else { 0xb1 });
        c
    };
    let methods = vec![
        Method {
            access: PUBLIC,
            name: "<init>",
            descriptor: "(Ljava/lang/Object;)V",
            code: Some((2, 2, init)),
        },
        Method {
            access: PUBLIC,
            name: "run",
            descriptor: "()V",
            code: Some((3, 1, body(run, false))),
        },
        Method {
            access: PUBLIC,
            name: "call",
            descriptor: "()Ljava/lang/Object;",
            code: Some((3, 1, body(call, true))),
        },
        Method {
            access: PUBLIC,
            name: "get",
            descriptor: "()Ljava/lang/Object;",
            code: Some((3, 1, body(get, true))),
        },
    ];
    let interfaces = crate::plan::WRAPPABLE.map(|e| e.interface);
    build(
        TASK_CLASS,
        &interfaces,
        &[("task", "Ljava/lang/Object;")],
        methods,
        pool,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_classes_parse() {
        let rec = lockstep_classfile::parse(&rec_class().unwrap()).unwrap();
        assert_eq!(&*rec.this_class, RT_CLASS);
        assert_eq!(rec.methods.len(), natives().len());
        let task = lockstep_classfile::parse(&task_class().unwrap()).unwrap();
        assert_eq!(task.interfaces.len(), 3);
        assert_eq!(task.methods.len(), 4);
    }
}
