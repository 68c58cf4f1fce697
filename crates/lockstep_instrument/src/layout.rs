//! Rewriting one class: probes per instruction, new offsets, moved tables.
//!
//! Each original instruction becomes a *unit*: `prefix` probe bytes, the
//! instruction (re-encoded when it is a branch or switch), `suffix` probe
//! bytes. Branch targets, frames and exception ranges that named the
//! instruction now name the start of its unit, so a probe before an
//! instruction runs on every path into it and sees the same stack. A method
//! prologue (entry probes) comes before the first unit, so a loop back to
//! offset 0 does not repeat it; the catch-all handler comes after the last.

use std::collections::BTreeSet;

use lockstep_classfile::{
    access, ArrayKind, ClassFile, Code, Insn, InvokeKind, Kind, MemberRef, MethodInfo,
};

use crate::emit::{self, Emitter, Native, ACONST_NULL, ALOAD_0, ATHROW, DUP, DUP2, DUP2_X1, POP2};
use crate::guidance::Guidance;
use crate::plan::{call_plan, needs_result, CallPlan};
use crate::pool::Pool;
use crate::raw::{put_u16, put_u32, Cursor, RawAttr, RawClass, RawMember};
use crate::stackmap::{self, Form, Frame, VType};
use crate::{
    CallEvent, Error, FieldDecl, FieldRef, Instrumented, Options, Probe, ProbeEvent, Site,
};

const POP: u8 = 0x57;
const DUP_X2: u8 = 0x5b;
const GOTO: u8 = 0xa7;
const JSR: u8 = 0xa8;
const GOTO_W: u8 = 0xc8;
const JSR_W: u8 = 0xc9;
/// Probes add at most this much to the operand stack at any point.
const EXTRA_STACK: u16 = 6;

pub(crate) fn instrument_class(
    bytes: &[u8],
    first_probe: u32,
    options: &Options,
    guidance: &Guidance,
) -> Result<Instrumented, Error> {
    let class = lockstep_classfile::parse(bytes).map_err(|e| Error::new(e.to_string()))?;
    let mut raw = RawClass::read(bytes)?;
    if raw.methods.len() != class.methods.len() {
        return Err(Error::new("method count differs between readers"));
    }
    let this_index = raw
        .header
        .get(2..4)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
        .ok_or_else(|| Error::new("class header too short"))?;
    let mut pool = Pool::continuing(raw.pool_count, std::mem::take(&mut raw.pool_bytes));
    let mut em = Emitter {
        pool: &mut pool,
        first_probe,
        probes: Vec::new(),
    };
    let mut notes = Vec::new();
    let mut changed = false;
    for (method, raw_method) in class.methods.iter().zip(raw.methods.iter_mut()) {
        let Some(code) = &method.code else { continue };
        let Some(attr) = raw_method
            .attrs
            .iter_mut()
            .find(|a| class.constant_pool.utf8(a.name).map(|s| &**s) == Some("Code"))
        else {
            continue;
        };
        let mark = em.probes.len();
        let mut cx = MethodCx {
            class: &class,
            method,
            code,
            this_index,
            options,
            race_free: guidance.skipped_in(&class.this_class, &method.name, &method.descriptor),
            atomic: guidance.is_atomic(&class.this_class, &method.name, &method.descriptor),
            no_monitors: guidance.monitors_elided(
                &class.this_class,
                &method.name,
                &method.descriptor,
            ),
        };
        let mut result = rewrite_method(&cx, &attr.body, &mut em);
        // A method proven atomic that records only monitors needs no frame
        // events at all (no access or call of its own sees the depth).
        let no_frames = Options {
            methods: false,
            ..*options
        };
        if cx.atomic && matches!(result, Ok(Some(_))) && only_monitors(&em.probes[mark..]) {
            em.probes.truncate(mark);
            cx.options = &no_frames;
            result = rewrite_method(&cx, &attr.body, &mut em);
        }
        match result {
            Ok(Some(body)) => {
                attr.body = body;
                changed = true;
            }
            Ok(None) => em.probes.truncate(mark),
            Err(e) => {
                em.probes.truncate(mark);
                notes.push(format!(
                    "{}.{}{} left uninstrumented: {e}",
                    class.this_class, method.name, method.descriptor
                ));
            }
        }
    }
    let probes = std::mem::take(&mut em.probes);
    let id_field = changed && options.id_field && takes_id_field(&class);
    if id_field {
        raw.fields.push(RawMember {
            access: access::PRIVATE | access::TRANSIENT | access::SYNTHETIC,
            name: pool.utf8(crate::ID_FIELD)?,
            descriptor: pool.utf8("J")?,
            attrs: Vec::new(),
        });
    }
    let bytes = if changed {
        raw.pool_count = pool.count();
        raw.pool_bytes = pool.into_bytes();
        Some(raw.write()?)
    } else {
        None
    };
    Ok(Instrumented {
        bytes,
        class: class.this_class.to_string(),
        super_class: class.super_class.as_ref().map(|s| s.to_string()),
        fields: class
            .fields
            .iter()
            .map(|f| FieldDecl {
                name: f.name.to_string(),
                descriptor: f.descriptor.to_string(),
                is_static: f.access_flags & access::STATIC != 0,
                is_volatile: f.access_flags & access::VOLATILE != 0,
                is_final: f.access_flags & access::FINAL != 0,
            })
            .collect(),
        methods: class.methods.iter().map(method_decl).collect(),
        probes: if changed { probes } else { Vec::new() },
        id_field,
        notes,
    })
}

/// A method's name, descriptor and flags (`@Atomic` of any package as
/// [`lockstep_trace::method_flags::ATOMIC`]).
fn method_decl(m: &MethodInfo) -> crate::MethodDecl {
    let atomic = m.annotations.iter().any(|a| {
        let t = a.type_descriptor.as_ref();
        t == "LAtomic;" || t.ends_with("/Atomic;")
    });
    let mut flags = u32::from(m.access_flags);
    if atomic {
        flags |= lockstep_trace::method_flags::ATOMIC;
    }
    crate::MethodDecl {
        name: m.name.to_string(),
        descriptor: m.descriptor.to_string(),
        flags,
    }
}

/// Does `class` get the object-id field? Only the topmost application
/// class of a hierarchy (its superclass is never instrumented), so an
/// object has at most one such field and every class below the topmost
/// one sees the same field. Not interfaces and modules (no instance
/// fields), not records (their fields are their components), and not a
/// class that already has the field (rewritten twice).
fn takes_id_field(class: &ClassFile) -> bool {
    let flags = class.access_flags;
    let is_type_only = flags & (access::INTERFACE | access::MODULE) != 0;
    let root = class
        .super_class
        .as_deref()
        .is_some_and(|s| crate::never_instrumented(s) && s != "java/lang/Record");
    let has_it = class.fields.iter().any(|f| &*f.name == crate::ID_FIELD);
    root && !is_type_only && !has_it
}

struct MethodCx<'a> {
    class: &'a ClassFile,
    method: &'a MethodInfo,
    code: &'a Code,
    this_index: u16,
    options: &'a Options,
    /// Offsets of access instructions the static analysis proved race-free.
    race_free: Option<&'a BTreeSet<u32>>,
    /// Proven atomic: its entry and exit are no transaction boundary.
    atomic: bool,
    /// Its monitor events are not needed by the run's checkers (static
    /// guidance): no probe on `monitorenter`/`monitorexit` nor on the
    /// entry and exits of a `synchronized` method.
    no_monitors: bool,
}

/// Are `probes` (one method's) monitor events and frame events only?
fn only_monitors(probes: &[Probe]) -> bool {
    probes.iter().all(|p| {
        matches!(
            p.event,
            ProbeEvent::MonitorEnter
                | ProbeEvent::MonitorExit
                | ProbeEvent::AtomicEnter
                | ProbeEvent::AtomicExit
        )
    })
}

impl MethodCx<'_> {
    fn site(&self, offset: u32) -> Site {
        let line = self
            .code
            .line_numbers
            .iter()
            .take_while(|l| l.start_pc <= offset)
            .last()
            .map(|l| l.line);
        Site {
            class: self.class.this_class.to_string(),
            method: self.method.name.to_string(),
            descriptor: self.method.descriptor.to_string(),
            line,
            file: self.class.source_file.as_ref().map(|s| s.to_string()),
        }
    }

    /// Is the access instruction at `pc` proven race-free (no probe)?
    fn proven_race_free(&self, pc: u32) -> bool {
        self.race_free.is_some_and(|s| s.contains(&pc))
    }

    /// The probe of the method's entry (`enter`) or of one of its exits.
    fn frame_event(&self, enter: bool) -> ProbeEvent {
        match (self.atomic, enter) {
            (false, true) => ProbeEvent::MethodEnter,
            (false, false) => ProbeEvent::MethodExit,
            (true, true) => ProbeEvent::AtomicEnter,
            (true, false) => ProbeEvent::AtomicExit,
        }
    }

    fn is_static(&self) -> bool {
        self.method.access_flags & access::STATIC != 0
    }

    /// Does `r` name a `final` instance field declared by the class being
    /// rewritten? Its only writes are the constructor's, before the object
    /// is published, and the Java memory model makes them visible to every
    /// thread that reaches the object, even through a racy publication: the
    /// field can never race, so it gets no probe (fewer events, too). Only
    /// the field is frozen: an array or object it holds is still checked
    /// through its own accesses. `static final` fields keep their probes
    /// (the recorder needs them for class-initialization ordering).
    fn is_own_final_instance_field(&self, r: &MemberRef) -> bool {
        *r.class == *self.class.this_class
            && self.class.fields.iter().any(|f| {
                f.access_flags & (access::FINAL | access::STATIC) == access::FINAL
                    && *f.name == *r.name
                    && *f.descriptor == *r.descriptor
            })
    }
}

/// What an instruction becomes in the new code.
enum Body {
    Raw(Vec<u8>),
    /// A branch normalised to its short opcode (`goto_w` → `goto`).
    Branch {
        opcode: u8,
        target: u32,
    },
    TableSwitch {
        default: u32,
        low: i32,
        high: i32,
        targets: Vec<u32>,
    },
    LookupSwitch {
        default: u32,
        pairs: Vec<(i32, u32)>,
    },
}

struct Unit {
    old: u32,
    prefix: Vec<u8>,
    body: Body,
    suffix: Vec<u8>,
}

/// The parsed `Code` attribute around the bytecode.
struct RawCode {
    max_stack: u16,
    max_locals: u16,
    exceptions: Vec<[u16; 4]>,
    attrs: Vec<RawAttr>,
}

fn read_raw_code(body: &[u8]) -> Result<RawCode, Error> {
    let mut c = Cursor::new(body);
    let max_stack = c.u16()?;
    let max_locals = c.u16()?;
    let len = c.u32()? as usize;
    c.bytes(len)?;
    let n = c.u16()?;
    let mut exceptions = Vec::with_capacity(usize::from(n));
    for _ in 0..n {
        exceptions.push([c.u16()?, c.u16()?, c.u16()?, c.u16()?]);
    }
    let attrs = crate::raw::read_attrs(&mut c)?;
    Ok(RawCode {
        max_stack,
        max_locals,
        exceptions,
        attrs,
    })
}

/// Index of the first unit after the `super(…)`/`this(…)` call of a
/// constructor: no probe may touch `this` before it, so units before it get
/// none. `None` when the call cannot be found (then the constructor is left alone).
fn first_unit_after_super(cx: &MethodCx<'_>) -> Option<usize> {
    if &*cx.method.name != "<init>" {
        return Some(0);
    }
    let pool = &cx.class.constant_pool;
    let mut pending: Vec<&str> = Vec::new();
    for (i, (_, insn)) in cx.code.insns.iter().enumerate() {
        match insn {
            Insn::New(idx) => pending.push(pool.class_name(*idx).map(|s| &**s).unwrap_or("")),
            Insn::Invoke(InvokeKind::Special, idx) => {
                let Some((r, _)) = pool.method_ref(*idx) else {
                    continue;
                };
                if &*r.name != "<init>" {
                    continue;
                }
                if let Some(pos) = pending.iter().rposition(|c| *c == &*r.class) {
                    pending.remove(pos);
                    continue;
                }
                let own = *r.class == *cx.class.this_class
                    || cx.class.super_class.as_deref() == Some(&*r.class);
                if own && pending.is_empty() {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn array_value_kind(k: ArrayKind) -> Kind {
    match k {
        ArrayKind::Long => Kind::Long,
        ArrayKind::Double => Kind::Double,
        ArrayKind::Float => Kind::Float,
        ArrayKind::Ref => Kind::Ref,
        _ => Kind::Int,
    }
}

/// Per-method probe state: temporaries above the original locals.
struct Temps {
    base: u16,
    needed: u16,
    /// The method may be a task's body: its returns release the task's end.
    task_body: bool,
}

/// May this method be the body of a task object (`TimerTask.run`,
/// `ForkJoinTask.compute`/`exec`)? Then its entry and exits are probed with
/// `this` (which must stay in local 0: javac never reassigns it).
fn is_task_body(cx: &MethodCx<'_>) -> bool {
    let writes_local0 = || {
        cx.code
            .insns
            .iter()
            .any(|(_, i)| matches!(i, Insn::Store(_, 0)))
    };
    cx.options.sync
        && !cx.is_static()
        && cx.class.super_class.as_deref().is_some_and(|sup| {
            lockstep_models::recorder::may_be_task_body(sup, &cx.method.name, &cx.method.descriptor)
        })
        && !writes_local0()
}

fn rewrite_method(
    cx: &MethodCx<'_>,
    body: &[u8],
    em: &mut Emitter<'_>,
) -> Result<Option<Vec<u8>>, Error> {
    let rc = read_raw_code(body)?;
    let code_bytes = code_slice(body)?;
    let opts = cx.options;
    let first_probed = first_unit_after_super(cx);
    let is_sync = cx.method.access_flags & access::SYNCHRONIZED != 0;
    let writes_local0 = cx
        .code
        .insns
        .iter()
        .any(|(_, i)| matches!(i, Insn::Store(_, 0)));
    let sync_probes = opts.sync
        && !cx.no_monitors
        && is_sync
        && if cx.is_static() {
            cx.class.major_version >= 49
        } else {
            !writes_local0
        };
    let task_body = is_task_body(cx);
    let mut temps = Temps {
        base: rc.max_locals,
        needed: 0,
        task_body,
    };
    let mark = em.probes.len();
    let clinit = &*cx.method.name == "<clinit>";

    let mut units = Vec::with_capacity(cx.code.insns.len());
    for (i, (off, insn)) in cx.code.insns.iter().enumerate() {
        let end = cx
            .code
            .insns
            .get(i + 1)
            .map(|(o, _)| *o)
            .unwrap_or(cx.code.code_length);
        let raw = code_bytes
            .get(*off as usize..end as usize)
            .ok_or_else(|| Error::new("instruction out of range"))?;
        let mut unit = Unit {
            old: *off,
            prefix: Vec::new(),
            body: body_of(insn, raw),
            suffix: Vec::new(),
        };
        if first_probed.is_some_and(|f| i >= f) {
            probe_insn(cx, em, &mut temps, &mut unit, insn, sync_probes, clinit)?;
        }
        units.push(unit);
    }

    let mut prologue = Vec::new();
    if opts.methods {
        let id = em.register(Probe {
            site: cx.site(0),
            event: cx.frame_event(true),
        })?;
        em.call(&mut prologue, Native::E, id)?;
    }
    if sync_probes {
        load_monitor(cx, em, &mut prologue)?;
        let id = em.register(Probe {
            site: cx.site(0),
            event: ProbeEvent::MonitorEnter,
        })?;
        em.call(&mut prologue, Native::O, id)?;
    }
    if task_body {
        task_probe(em, &mut prologue, cx.site(0), ProbeEvent::TaskBegin)?;
    }
    let mut handler = Vec::new();
    let catch_all = (opts.methods || sync_probes || task_body) && first_probed.is_some();
    if catch_all {
        let exit_site = cx.site(cx.code.insns.last().map(|(o, _)| *o).unwrap_or(0));
        if sync_probes {
            load_monitor(cx, em, &mut handler)?;
            let id = em.register(Probe {
                site: exit_site.clone(),
                event: ProbeEvent::MonitorExit,
            })?;
            em.call(&mut handler, Native::O, id)?;
        }
        if task_body {
            task_probe(em, &mut handler, exit_site.clone(), ProbeEvent::TaskEnd)?;
        }
        if opts.methods {
            let id = em.register(Probe {
                site: exit_site,
                event: cx.frame_event(false),
            })?;
            em.call(&mut handler, Native::E, id)?;
        }
        handler.push(ATHROW);
    }
    if em.probes.len() == mark {
        return Ok(None);
    }
    let uses_frames = cx.class.major_version >= 50;
    let smt_name = attr_named(cx, &rc.attrs, "StackMapTable");
    let has_smt = smt_name.is_some();
    let conditional_widening_ok = !(uses_frames && (has_smt || cx.class.major_version >= 51));
    let laid = lay_out(&units, prologue.len() as u32, conditional_widening_ok)?;
    let catch_start = match first_probed {
        Some(f) => laid.unit_start.get(f).copied().unwrap_or(laid.end),
        None => laid.end,
    };
    let add_handler = catch_all && catch_start < laid.end;

    // Code bytes.
    let mut code = Vec::with_capacity(laid.end as usize + handler.len());
    code.extend_from_slice(&prologue);
    for (i, u) in units.iter().enumerate() {
        code.extend_from_slice(&u.prefix);
        encode_body(&mut code, &units, i, &laid)?;
        code.extend_from_slice(&u.suffix);
    }
    debug_assert_eq!(code.len() as u32, laid.end);
    let handler_pc = laid.end;
    if add_handler {
        code.extend_from_slice(&handler);
    }
    if code.len() > 65535 {
        return Err(Error::new(format!(
            "code too large after probing ({} bytes)",
            code.len()
        )));
    }
    let map_unit = |old: u32| laid.map_unit(&units, old);
    let map_insn = |old: u32| laid.map_insn(&units, old);

    // Exception table.
    let mut exceptions = Vec::with_capacity(rc.exceptions.len() + 1);
    for [s, e, h, t] in &rc.exceptions {
        let m = |o: u16| -> Result<u16, Error> {
            map_unit(u32::from(o))
                .and_then(|n| u16::try_from(n).ok())
                .ok_or_else(|| Error::new("exception table offset not at an instruction"))
        };
        exceptions.push([m(*s)?, m(*e)?, m(*h)?, *t]);
    }
    if add_handler {
        let to16 = |v: u32| u16::try_from(v).map_err(|_| Error::new("handler beyond 65535"));
        exceptions.push([to16(catch_start)?, to16(handler_pc)?, to16(handler_pc)?, 0]);
    }

    // Code attributes.
    let mut attrs = Vec::with_capacity(rc.attrs.len() + 1);
    let mut frames_written = false;
    for a in &rc.attrs {
        let name = cx
            .class
            .constant_pool
            .utf8(a.name)
            .map(|s| &**s)
            .unwrap_or("");
        let new_body = match name {
            "LineNumberTable" => Some(move_line_numbers(&a.body, &map_unit)?),
            "LocalVariableTable" | "LocalVariableTypeTable" => {
                Some(move_local_variables(&a.body, &map_unit)?)
            }
            "StackMapTable" => {
                let mut frames = stackmap::decode(&a.body)?;
                stackmap::relocate(&mut frames, &map_unit, &map_insn)?;
                if add_handler {
                    frames.push(handler_frame(cx, em, handler_pc)?);
                }
                frames_written = true;
                Some(stackmap::encode(&frames)?)
            }
            // Type annotations carry code offsets we do not rewrite; they
            // are metadata, never needed to run.
            "RuntimeVisibleTypeAnnotations" | "RuntimeInvisibleTypeAnnotations" => None,
            _ => Some(a.body.clone()),
        };
        if let Some(body) = new_body {
            attrs.push(RawAttr { name: a.name, body });
        }
    }
    if add_handler && !frames_written && cx.class.major_version >= 51 {
        let frames = vec![handler_frame(cx, em, handler_pc)?];
        let name = em.pool.utf8("StackMapTable")?;
        attrs.push(RawAttr {
            name,
            body: stackmap::encode(&frames)?,
        });
    }

    let max_locals = rc
        .max_locals
        .checked_add(temps.needed)
        .ok_or_else(|| Error::new("too many locals after probing"))?;
    let mut out = Vec::with_capacity(code.len() + 64);
    put_u16(&mut out, rc.max_stack.saturating_add(EXTRA_STACK).max(3));
    put_u16(&mut out, max_locals);
    put_u32(&mut out, code.len() as u32);
    out.extend_from_slice(&code);
    put_u16(
        &mut out,
        crate::raw::len_u16(exceptions.len(), "exception table")?,
    );
    for e in &exceptions {
        e.iter().for_each(|&v| put_u16(&mut out, v));
    }
    crate::raw::write_attrs(&mut out, &attrs)?;
    Ok(Some(out))
}

fn attr_named<'a>(cx: &MethodCx<'_>, attrs: &'a [RawAttr], name: &str) -> Option<&'a RawAttr> {
    attrs
        .iter()
        .find(|a| cx.class.constant_pool.utf8(a.name).map(|s| &**s) == Some(name))
}

/// The bytecode array inside a `Code` attribute body.
fn code_slice(body: &[u8]) -> Result<&[u8], Error> {
    let mut c = Cursor::new(body);
    c.bytes(4)?;
    let len = c.u32()? as usize;
    c.bytes(len)
}

/// The catch-all handler's frame: `this` (only for a `synchronized`
/// instance method, whose handler reads it) and the throwable.
fn handler_frame(cx: &MethodCx<'_>, em: &mut Emitter<'_>, pc: u32) -> Result<Frame, Error> {
    let is_sync = cx.method.access_flags & access::SYNCHRONIZED != 0;
    let locals = if (is_sync && !cx.is_static() && cx.options.sync) || is_task_body(cx) {
        vec![VType::Object(cx.this_index)]
    } else {
        vec![]
    };
    let throwable = em.pool.class("java/lang/Throwable")?;
    Ok(Frame {
        offset: pc,
        form: Form::Full(locals, vec![VType::Object(throwable)]),
    })
}

/// `aload_0` and a task probe on `this`.
fn task_probe(
    em: &mut Emitter<'_>,
    out: &mut Vec<u8>,
    site: Site,
    event: ProbeEvent,
) -> Result<(), Error> {
    let id = em.register(Probe { site, event })?;
    out.push(ALOAD_0);
    em.call(out, Native::O, id)
}

fn load_monitor(cx: &MethodCx<'_>, em: &mut Emitter<'_>, out: &mut Vec<u8>) -> Result<(), Error> {
    if cx.is_static() {
        em.ldc_class(out, &cx.class.this_class)
    } else {
        out.push(ALOAD_0);
        Ok(())
    }
}

fn body_of(insn: &Insn, raw: &[u8]) -> Body {
    let opcode = raw.first().copied().unwrap_or(0);
    match insn {
        Insn::If(_, t) => Body::Branch { opcode, target: *t },
        Insn::Goto(t) => Body::Branch {
            opcode: GOTO,
            target: *t,
        },
        Insn::Jsr(t) => Body::Branch {
            opcode: JSR,
            target: *t,
        },
        Insn::TableSwitch {
            default,
            low,
            high,
            targets,
        } => Body::TableSwitch {
            default: *default,
            low: *low,
            high: *high,
            targets: targets.clone(),
        },
        Insn::LookupSwitch { default, pairs } => Body::LookupSwitch {
            default: *default,
            pairs: pairs.clone(),
        },
        _ => Body::Raw(raw.to_vec()),
    }
}

/// Adds the probes of one instruction to its unit.
fn probe_insn(
    cx: &MethodCx<'_>,
    em: &mut Emitter<'_>,
    temps: &mut Temps,
    unit: &mut Unit,
    insn: &Insn,
    sync_probes: bool,
    clinit: bool,
) -> Result<(), Error> {
    let opts = cx.options;
    let pool = &cx.class.constant_pool;
    let site = || cx.site(unit.old);
    match insn {
        Insn::GetField(idx) | Insn::PutField(idx) | Insn::GetStatic(idx) | Insn::PutStatic(idx)
            if opts.fields =>
        {
            let r = pool
                .field_ref(*idx)
                .ok_or_else(|| Error::new("bad field reference"))?;
            let is_static = matches!(insn, Insn::GetStatic(_) | Insn::PutStatic(_));
            if !is_static && cx.is_own_final_instance_field(r) {
                return Ok(());
            }
            // Static fields keep their probes whatever the guidance: their
            // reads order the reader after class initialization.
            if !is_static && cx.proven_race_free(unit.old) {
                return Ok(());
            }
            let kind =
                emit::kind_of(&r.descriptor).ok_or_else(|| Error::new("bad field descriptor"))?;
            let is_static = matches!(insn, Insn::GetStatic(_) | Insn::PutStatic(_));
            let field = FieldRef {
                owner: r.class.to_string(),
                name: r.name.to_string(),
                descriptor: r.descriptor.to_string(),
                is_static,
            };
            let read = matches!(insn, Insn::GetField(_) | Insn::GetStatic(_));
            let event = if read {
                ProbeEvent::FieldRead(field)
            } else {
                ProbeEvent::FieldWrite(field)
            };
            let id = em.register(Probe {
                site: site(),
                event,
            })?;
            match insn {
                // obj → obj, obj → obj, v → v, obj → v
                Insn::GetField(_) => {
                    unit.prefix.push(DUP);
                    emit::swap_under(&mut unit.suffix, kind);
                    em.call(&mut unit.suffix, Native::O, id)?;
                }
                Insn::PutField(_) => {
                    if kind.is_wide() {
                        // obj, v2 → v2, obj, v2 → v2, obj → obj, v2, obj
                        unit.prefix.extend_from_slice(&[DUP2_X1, POP2, DUP_X2]);
                    } else {
                        // obj, v → obj, v, obj, v → obj, v, obj
                        unit.prefix.extend_from_slice(&[DUP2, POP]);
                    }
                    em.call(&mut unit.prefix, Native::O, id)?;
                }
                Insn::GetStatic(_) => em.call(&mut unit.suffix, Native::E, id)?,
                _ => em.call(&mut unit.prefix, Native::E, id)?,
            }
        }
        Insn::ArrayLoad(_) | Insn::ArrayStore(_) if cx.proven_race_free(unit.old) => {}
        Insn::ArrayLoad(_) if opts.arrays => {
            let id = em.register(Probe {
                site: site(),
                event: ProbeEvent::ArrayRead,
            })?;
            unit.prefix.push(DUP2);
            em.call(&mut unit.prefix, Native::OI, id)?;
        }
        Insn::ArrayStore(k) if opts.arrays => {
            let id = em.register(Probe {
                site: site(),
                event: ProbeEvent::ArrayWrite,
            })?;
            let kind = array_value_kind(*k);
            let slot = temps.base;
            temps.needed = temps.needed.max(emit::slots(kind));
            emit::local(&mut unit.prefix, kind, slot, true);
            unit.prefix.push(DUP2);
            em.call(&mut unit.prefix, Native::OI, id)?;
            emit::local(&mut unit.prefix, kind, slot, false);
        }
        Insn::MonitorEnter if opts.sync && !cx.no_monitors => {
            let id = em.register(Probe {
                site: site(),
                event: ProbeEvent::MonitorEnter,
            })?;
            unit.prefix.push(DUP);
            em.call(&mut unit.suffix, Native::O, id)?;
        }
        Insn::MonitorExit if opts.sync && !cx.no_monitors => {
            let id = em.register(Probe {
                site: site(),
                event: ProbeEvent::MonitorExit,
            })?;
            unit.prefix.push(DUP);
            em.call(&mut unit.prefix, Native::O, id)?;
        }
        Insn::Return(_) => {
            if sync_probes {
                load_monitor(cx, em, &mut unit.prefix)?;
                let id = em.register(Probe {
                    site: site(),
                    event: ProbeEvent::MonitorExit,
                })?;
                em.call(&mut unit.prefix, Native::O, id)?;
            }
            if temps.task_body {
                task_probe(em, &mut unit.prefix, site(), ProbeEvent::TaskEnd)?;
            }
            if clinit {
                let id = em.register(Probe {
                    site: site(),
                    event: ProbeEvent::ClassInit,
                })?;
                em.call(&mut unit.prefix, Native::E, id)?;
            }
            if opts.methods {
                let id = em.register(Probe {
                    site: site(),
                    event: cx.frame_event(false),
                })?;
                em.call(&mut unit.prefix, Native::E, id)?;
            }
        }
        Insn::Invoke(kind, idx) if opts.sync => {
            let (r, _) = pool
                .method_ref(*idx)
                .ok_or_else(|| Error::new("bad method reference"))?;
            let plan = call_plan(*kind, &r.class, &r.name, &r.descriptor);
            if !plan.is_empty() {
                probe_call(cx, em, temps, unit, *kind == InvokeKind::Static, r, &plan)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Probes around a modelled call: the receiver and arguments are saved in
/// temporaries, so probes can read the receiver before and after the call
/// whatever the arguments are, and the task argument can be replaced.
fn probe_call(
    cx: &MethodCx<'_>,
    em: &mut Emitter<'_>,
    temps: &mut Temps,
    unit: &mut Unit,
    is_static: bool,
    r: &lockstep_classfile::MemberRef,
    plan: &CallPlan,
) -> Result<(), Error> {
    let (params, ret) =
        emit::signature(&r.descriptor).ok_or_else(|| Error::new("bad method descriptor"))?;
    let mut slots = Vec::with_capacity(params.len());
    let mut next = temps.base;
    let receiver = if is_static {
        None
    } else {
        let s = next;
        next = next
            .checked_add(1)
            .ok_or_else(|| Error::new("too many locals"))?;
        Some(s)
    };
    for k in &params {
        slots.push(next);
        next = next
            .checked_add(emit::slots(*k))
            .ok_or_else(|| Error::new("too many locals"))?;
    }
    temps.needed = temps.needed.max(next - temps.base);
    let site = cx.site(unit.old);
    let probe = |em: &mut Emitter<'_>, event: CallEvent| {
        em.register(Probe {
            site: site.clone(),
            event: ProbeEvent::Call {
                owner: r.class.to_string(),
                name: r.name.to_string(),
                descriptor: r.descriptor.to_string(),
                event,
            },
        })
    };
    let load_receiver = |out: &mut Vec<u8>| match receiver {
        Some(s) => emit::local(out, Kind::Ref, s, false),
        None => out.push(ACONST_NULL),
    };
    let p = &mut unit.prefix;
    for (k, s) in params.iter().zip(&slots).rev() {
        emit::local(p, *k, *s, true);
    }
    if let Some(s) = receiver {
        emit::local(p, Kind::Ref, s, true);
    }
    for e in &plan.pre {
        if *e == CallEvent::HandOff {
            continue;
        }
        let id = probe(em, *e)?;
        load_receiver(p);
        em.call(p, Native::O, id)?;
    }
    for &(n, e) in &plan.pre_args {
        let (Some(k), Some(s)) = (params.get(n), slots.get(n)) else {
            continue;
        };
        let id = probe(em, e)?;
        load_receiver(p);
        arg_probe(em, p, *k, *s, id)?;
    }
    if let Some(s) = receiver {
        emit::local(p, Kind::Ref, s, false);
    }
    for (i, (k, s)) in params.iter().zip(&slots).enumerate() {
        if plan.wrap_arg == Some(i) {
            let event = if plan.wrap_all {
                CallEvent::WrapTasks
            } else {
                CallEvent::HandOff
            };
            let id = probe(em, event)?;
            load_receiver(p);
            emit::local(p, Kind::Ref, *s, false);
            em.call(p, Native::W, id)?;
        } else {
            emit::local(p, *k, *s, false);
        }
    }
    let q = &mut unit.suffix;
    for &(n, e) in &plan.post_args {
        let (Some(k), Some(s)) = (params.get(n), slots.get(n)) else {
            continue;
        };
        let id = probe(em, e)?;
        if matches!(e, CallEvent::StampConvert(_)) {
            if ret != Some(Kind::Long) || *k != Kind::Long {
                continue;
            }
            // stamp2 → stamp2, (stamp != 0) << 8 | arg & 0xFF → stamp2, recv, bits
            emit::long_is_nonzero(q);
            q.extend_from_slice(&[emit::DUP, emit::IMUL, emit::BIPUSH, 8, emit::ISHL]);
            emit::local(q, Kind::Long, *s, false);
            q.extend_from_slice(&[emit::L2I, emit::SIPUSH, 0, 0xFF, emit::IAND, emit::IOR]);
            load_receiver(q);
            q.push(emit::SWAP);
            em.call(q, Native::OI, id)?;
        } else {
            load_receiver(q);
            arg_probe(em, q, *k, *s, id)?;
        }
    }
    for e in &plan.post {
        let id = probe(em, *e)?;
        if needs_result(*e) && ret == Some(Kind::Long) {
            // stamp2 → stamp2, nonzero → stamp2, nonzero, recv → stamp2, recv, nonzero
            emit::long_is_nonzero(q);
            load_receiver(q);
            q.push(emit::SWAP);
            em.call(q, Native::OI, id)?;
            continue;
        }
        if needs_result(*e) {
            let native = match ret {
                Some(Kind::Int) => Native::OI,
                Some(Kind::Ref) => Native::OO,
                _ => continue,
            };
            // res → res, res → res, res, recv → res, recv, res → res
            q.push(DUP);
            load_receiver(q);
            q.push(emit::SWAP);
            em.call(q, native, id)?;
        } else {
            load_receiver(q);
            em.call(q, Native::O, id)?;
        }
    }
    Ok(())
}

/// `recv → ` a call of the native for argument `k` in `slot` (an `int`
/// or the low 32 bits of a `long` through `oi`, an object through `oo`).
fn arg_probe(
    em: &mut Emitter<'_>,
    out: &mut Vec<u8>,
    k: Kind,
    slot: u16,
    id: u32,
) -> Result<(), Error> {
    emit::local(out, k, slot, false);
    let native = match k {
        Kind::Ref => Native::OO,
        Kind::Long => {
            out.push(emit::L2I);
            Native::OI
        }
        Kind::Int => Native::OI,
        // No modelled call passes a float or double to a probe.
        Kind::Float | Kind::Double => {
            out.push(if k.is_wide() { emit::POP2 } else { emit::POP });
            out.push(emit::ICONST_0);
            Native::OI
        }
    };
    em.call(out, native, id)
}

/// New offsets of every unit.
struct Laid {
    unit_start: Vec<u32>,
    insn_start: Vec<u32>,
    wide: Vec<bool>,
    end: u32,
}

impl Laid {
    fn index(units: &[Unit], old: u32) -> Result<usize, usize> {
        units.binary_search_by_key(&old, |u| u.old)
    }
    fn map_unit(&self, units: &[Unit], old: u32) -> Option<u32> {
        match Laid::index(units, old) {
            Ok(i) => self.unit_start.get(i).copied(),
            Err(i) if i == units.len() => Some(self.end),
            Err(_) => None,
        }
    }
    fn map_insn(&self, units: &[Unit], old: u32) -> Option<u32> {
        Laid::index(units, old)
            .ok()
            .and_then(|i| self.insn_start.get(i).copied())
    }
}

fn switch_padding(insn_start: u32) -> u32 {
    (4 - (insn_start + 1) % 4) % 4
}

fn body_len(b: &Body, insn_start: u32, wide: bool) -> u32 {
    match b {
        Body::Raw(r) => r.len() as u32,
        Body::Branch { opcode, .. } => match (wide, *opcode) {
            (false, _) => 3,
            (true, GOTO | JSR) => 5,
            // inverted condition over a goto_w
            (true, _) => 8,
        },
        Body::TableSwitch { targets, .. } => {
            1 + switch_padding(insn_start) + 12 + 4 * targets.len() as u32
        }
        Body::LookupSwitch { pairs, .. } => {
            1 + switch_padding(insn_start) + 8 + 8 * pairs.len() as u32
        }
    }
}

fn lay_out(units: &[Unit], prologue: u32, conditional_widening_ok: bool) -> Result<Laid, Error> {
    let mut wide = vec![false; units.len()];
    for _round in 0..32 {
        let mut unit_start = Vec::with_capacity(units.len());
        let mut insn_start = Vec::with_capacity(units.len());
        let mut pos = prologue;
        for (i, u) in units.iter().enumerate() {
            unit_start.push(pos);
            pos += u.prefix.len() as u32;
            insn_start.push(pos);
            pos += body_len(&u.body, pos, wide[i]) + u.suffix.len() as u32;
            if pos > 1 << 20 {
                return Err(Error::new("code too large after probing"));
            }
        }
        let laid = Laid {
            unit_start,
            insn_start,
            wide: wide.clone(),
            end: pos,
        };
        let mut changed = false;
        for (i, u) in units.iter().enumerate() {
            if let Body::Branch { opcode, target } = &u.body {
                if wide[i] {
                    continue;
                }
                let to = laid
                    .map_unit(units, *target)
                    .ok_or_else(|| Error::new("branch target not at an instruction"))?;
                let delta = i64::from(to) - i64::from(laid.insn_start[i]);
                if i16::try_from(delta).is_err() {
                    if !matches!(*opcode, GOTO | JSR) && !conditional_widening_ok {
                        return Err(Error::new(
                            "a conditional branch would need widening, which needs a new stack map frame",
                        ));
                    }
                    wide[i] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            return Ok(laid);
        }
    }
    Err(Error::new("branch layout did not settle"))
}

/// The opcode of the opposite condition (`ifeq` ↔ `ifne`, `ifnull` ↔ `ifnonnull`).
fn invert(opcode: u8) -> u8 {
    match opcode {
        0xc6 => 0xc7,
        0xc7 => 0xc6,
        // ifeq..if_acmpne come in pairs: even/odd
        op if (0x99..=0xa6).contains(&op) => {
            if (op - 0x99) % 2 == 0 {
                op + 1
            } else {
                op - 1
            }
        }
        op => op,
    }
}

fn encode_body(out: &mut Vec<u8>, units: &[Unit], i: usize, laid: &Laid) -> Result<(), Error> {
    let u = &units[i];
    let here = laid.insn_start[i];
    let rel = |target: u32| -> Result<i32, Error> {
        let to = laid
            .map_unit(units, target)
            .ok_or_else(|| Error::new("branch target not at an instruction"))?;
        i32::try_from(i64::from(to) - i64::from(here)).map_err(|_| Error::new("branch too far"))
    };
    match &u.body {
        Body::Raw(r) => out.extend_from_slice(r),
        Body::Branch { opcode, target } => {
            let d = rel(*target)?;
            match (laid.wide[i], *opcode) {
                (false, op) => {
                    let d16 = i16::try_from(d).map_err(|_| Error::new("branch too far"))?;
                    out.push(op);
                    out.extend_from_slice(&d16.to_be_bytes());
                }
                (true, GOTO) => {
                    out.push(GOTO_W);
                    out.extend_from_slice(&d.to_be_bytes());
                }
                (true, JSR) => {
                    out.push(JSR_W);
                    out.extend_from_slice(&d.to_be_bytes());
                }
                (true, op) => {
                    // if!cond +8; goto_w target (relative to the goto_w at here+3)
                    out.push(invert(op));
                    out.extend_from_slice(&8i16.to_be_bytes());
                    out.push(GOTO_W);
                    out.extend_from_slice(&(d - 3).to_be_bytes());
                }
            }
        }
        Body::TableSwitch {
            default,
            low,
            high,
            targets,
        } => {
            out.push(0xaa);
            out.extend(std::iter::repeat_n(0u8, switch_padding(here) as usize));
            out.extend_from_slice(&rel(*default)?.to_be_bytes());
            out.extend_from_slice(&low.to_be_bytes());
            out.extend_from_slice(&high.to_be_bytes());
            for t in targets {
                out.extend_from_slice(&rel(*t)?.to_be_bytes());
            }
        }
        Body::LookupSwitch { default, pairs } => {
            out.push(0xab);
            out.extend(std::iter::repeat_n(0u8, switch_padding(here) as usize));
            out.extend_from_slice(&rel(*default)?.to_be_bytes());
            out.extend_from_slice(&(pairs.len() as i32).to_be_bytes());
            for (k, t) in pairs {
                out.extend_from_slice(&k.to_be_bytes());
                out.extend_from_slice(&rel(*t)?.to_be_bytes());
            }
        }
    }
    Ok(())
}

fn move_line_numbers(body: &[u8], map: &dyn Fn(u32) -> Option<u32>) -> Result<Vec<u8>, Error> {
    let mut c = Cursor::new(body);
    let n = c.u16()?;
    let mut out = Vec::with_capacity(body.len());
    put_u16(&mut out, n);
    for _ in 0..n {
        let pc = c.u16()?;
        let line = c.u16()?;
        let new = map(u32::from(pc))
            .and_then(|p| u16::try_from(p).ok())
            .ok_or_else(|| Error::new("line number entry not at an instruction"))?;
        put_u16(&mut out, new);
        put_u16(&mut out, line);
    }
    Ok(out)
}

fn move_local_variables(body: &[u8], map: &dyn Fn(u32) -> Option<u32>) -> Result<Vec<u8>, Error> {
    let mut c = Cursor::new(body);
    let n = c.u16()?;
    let mut out = Vec::with_capacity(body.len());
    put_u16(&mut out, n);
    for _ in 0..n {
        let start = u32::from(c.u16()?);
        let len = u32::from(c.u16()?);
        let rest = c.bytes(6)?;
        let s = map(start);
        let e = start.checked_add(len).and_then(map);
        let (Some(s), Some(e)) = (s, e) else {
            return Err(Error::new("local variable range not at instructions"));
        };
        put_u16(
            &mut out,
            u16::try_from(s).map_err(|_| Error::new("offset > 65535"))?,
        );
        put_u16(
            &mut out,
            u16::try_from(e - s).map_err(|_| Error::new("range > 65535"))?,
        );
        out.extend_from_slice(rest);
    }
    Ok(out)
}
