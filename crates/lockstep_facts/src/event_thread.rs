//! Which entries of the open-program harness run on the event dispatch
//! thread (EDT).
//!
//! The harness stands for a caller outside the analysed code. Swing's
//! threading rule (`lockstep_models::gui`) says such a caller touches
//! components, their models, renderers, editors and tree nodes only on
//! the EDT, and the EDT calls the GUI listeners: so the harness enters
//! those methods on the one EDT, one call after another. Its root for such
//! a method is then serial on the EDT ([`SerialThread::EventDispatch`]):
//! it pairs with the program's other threads and the harness's other
//! entries, not with itself, another EDT entry or a task handed to
//! `invokeLater`.
//!
//! And whatever way the harness reaches GUI code (a controller's public
//! method calling into its table model), it runs that code on the EDT
//! ([`harness_on_event_thread`]): the accesses in GUI code pair with the
//! program's own threads, not with other GUI code the harness reaches.
//!
//! Limits: the non-GUI code a non-GUI entry runs around its calls into GUI
//! code (the controller's own fields) stays an ordinary harness access;
//! the program's main thread building a frame before it is shown is not
//! ordered with the EDT (Swing's old rule allowed that). In an open
//! program every entry is one root, so only the second policy applies.

use crate::threads::{Graph, Root, RootKind, SerialThread};
use lockstep_program::{MethodId, Program};
use rustc_hash::FxHashMap;

/// The serial thread a harness entry runs on: the EDT for the instance
/// methods and constructors of an application class that is a GUI type,
/// and for the methods implementing a GUI listener interface.
pub fn harness_serial(program: &Program, m: MethodId) -> Option<SerialThread> {
    on_event_thread(program, m).then_some(SerialThread::EventDispatch)
}

/// Does the outside caller call `m` on the event dispatch thread?
fn on_event_thread(program: &Program, m: MethodId) -> bool {
    let data = program.method(m);
    if data.is_static() || data.is_class_initializer() {
        return false;
    }
    let supertypes = program.supertypes(data.class);
    let names = || supertypes.iter().map(|&s| &program.class(s).name);
    if names().any(|n| lockstep_models::gui::is_event_thread_type(n)) {
        return true;
    }
    is_listener_method(program, m)
}

/// Does `m` implement a method of a GUI listener interface its class
/// implements (`actionPerformed` of `ActionListener`)?
fn is_listener_method(program: &Program, m: MethodId) -> bool {
    let data = program.method(m);
    if data.is_static() || data.is_constructor() {
        return false;
    }
    program.supertypes(data.class).iter().any(|&s| {
        let c = program.class(s);
        lockstep_models::gui::is_event_listener_interface(&c.name)
            && c.declared_method(&data.name, &data.descriptor).is_some()
    })
}

/// The EDT calls GUI listeners: a call from JDK code into an application
/// listener method (`fireActionPerformed` into `actionPerformed`) is the
/// event thread's, not the thread that reached the JDK code (over the
/// JDK's context-insensitive listener lists, the main thread building one
/// frame would otherwise reach every listener of the program). Returns
/// one harness root on the EDT per such listener method, entered at the
/// nodes those calls reach, and the calls, sorted, which the roots'
/// reach does not follow.
pub(crate) fn listener_roots(program: &Program, graph: &Graph) -> (Vec<Root>, Vec<(u32, u32)>) {
    let mut listener: FxHashMap<MethodId, bool> = FxHashMap::default();
    let mut calls: Vec<(u32, u32)> = Vec::new();
    for (n, callees) in graph.callees.iter().enumerate() {
        let caller = graph.nodes[n].method;
        if program.is_application(program.method(caller).class) {
            continue;
        }
        for &(_, c) in callees {
            let m = graph.nodes[c as usize].method;
            let is = *listener.entry(m).or_insert_with(|| {
                program.is_application(program.method(m).class) && is_listener_method(program, m)
            });
            if is {
                calls.push((n as u32, c));
            }
        }
    }
    calls.sort_unstable();
    calls.dedup();
    let mut entries: Vec<(MethodId, u32)> = calls
        .iter()
        .map(|&(_, c)| (graph.nodes[c as usize].method, c))
        .collect();
    entries.sort_unstable();
    entries.dedup();
    let mut roots: Vec<Root> = Vec::new();
    for (m, node) in entries {
        match roots.last_mut() {
            Some(r) if matches!(r.kind, RootKind::Harness(x) if x == m) => r.entries.push(node),
            _ => roots.push(Root {
                kind: RootKind::Harness(m),
                entries: vec![node],
                multi: true,
                programs: None,
                alternative: None,
                serial: Some(SerialThread::EventDispatch),
            }),
        }
    }
    (roots, calls)
}

/// Swing's rule from the other side: whatever way the outside caller
/// reaches GUI code (an application method [`on_event_thread`] says runs
/// there), it runs that code on the EDT. In `reach` (the roots reaching
/// each node), every harness root that is not serial is replaced, at the
/// nodes of GUI code, by a twin of it on the EDT (appended to `roots`,
/// made on first use, in node order). The program's own threads are
/// untouched: a main thread or a started thread reaching GUI code still
/// pairs with the EDT.
pub(crate) fn harness_on_event_thread(
    program: &Program,
    graph: &Graph,
    roots: &mut Vec<Root>,
    reach: &mut [Vec<u32>],
) {
    let mut gui: FxHashMap<MethodId, bool> = FxHashMap::default();
    let mut twins: FxHashMap<u32, u32> = FxHashMap::default();
    for (node, reached) in reach.iter_mut().enumerate() {
        if !reached
            .iter()
            .any(|&r| roots.get(r as usize).is_some_and(assumed_anywhere))
        {
            continue;
        }
        let Some(mc) = graph.nodes.get(node) else {
            continue;
        };
        let on_edt = *gui.entry(mc.method).or_insert_with(|| {
            program.is_application(program.method(mc.method).class)
                && on_event_thread(program, mc.method)
        });
        if !on_edt {
            continue;
        }
        for r in reached.iter_mut() {
            let Some(root) = roots.get(*r as usize).filter(|x| assumed_anywhere(x)) else {
                continue;
            };
            if let Some(&twin) = twins.get(r) {
                *r = twin;
                continue;
            }
            let mut twin = root.clone();
            twin.serial = Some(SerialThread::EventDispatch);
            roots.push(twin);
            let id = (roots.len() - 1) as u32;
            twins.insert(*r, id);
            *r = id;
        }
    }
}

/// A harness root not known to run on a serial thread.
fn assumed_anywhere(root: &Root) -> bool {
    matches!(root.kind, RootKind::Harness(_)) && root.serial.is_none()
}
