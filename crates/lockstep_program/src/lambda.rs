//! Decoding `invokedynamic` sites of `LambdaMetafactory` into what they
//! create: an object of a synthetic class implementing one functional
//! interface, whose single abstract method (and bridges) forward to an
//! implementation method handle, captured values first.
//!
//! The call graph treats a reachable lambda site as an allocation of that
//! synthetic class ("lambda object"): a call of the SAM on a receiver of the
//! interface type then reaches the implementation method. This module only
//! decodes one site; it knows nothing of reachability. Other bootstraps
//! (`StringConcatFactory`, `ObjectMethods` for records, `SwitchBootstraps`)
//! are not lambdas and decode to `None`.

use std::sync::Arc;

use lockstep_ir::{ConstValue, DynamicCall, MethodHandle};

use lockstep_classfile::descriptor;

/// `LambdaMetafactory.FLAG_SERIALIZABLE`.
const FLAG_SERIALIZABLE: i32 = 1;
/// `LambdaMetafactory.FLAG_MARKERS`.
const FLAG_MARKERS: i32 = 2;
/// `LambdaMetafactory.FLAG_BRIDGES`.
const FLAG_BRIDGES: i32 = 4;

/// JVMS reference kinds of method handles.
pub mod ref_kind {
    pub const INVOKE_VIRTUAL: u8 = 5;
    pub const INVOKE_STATIC: u8 = 6;
    pub const INVOKE_SPECIAL: u8 = 7;
    pub const NEW_INVOKE_SPECIAL: u8 = 8;
    pub const INVOKE_INTERFACE: u8 = 9;
}

/// What a lambda site creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LambdaShape {
    /// The functional interface (internal name): the site descriptor's return type.
    pub interface: Arc<str>,
    /// The interface method implemented (the site's name).
    pub sam_name: Arc<str>,
    /// Its erased descriptor (`samMethodType`).
    pub sam_desc: Arc<str>,
    /// The descriptor after generic instantiation (`instantiatedMethodType`).
    pub instantiated_desc: Arc<str>,
    /// Further descriptors of `sam_name` the object implements (`altMetafactory` bridges).
    pub bridges: Vec<Arc<str>>,
    /// Further interfaces the object implements (`altMetafactory` markers, `Serializable`).
    pub markers: Vec<Arc<str>>,
    /// The implementation method handle.
    pub implementation: MethodHandle,
    /// Number of captured values (the site's arguments), passed first to the implementation.
    pub captured: usize,
}

impl LambdaShape {
    /// Does the lambda object implement `name desc` as its functional method?
    pub fn implements(&self, name: &str, desc: &str) -> bool {
        &*self.sam_name == name
            && (&*self.sam_desc == desc || self.bridges.iter().any(|b| &**b == desc))
    }
}

/// Decodes a `LambdaMetafactory.metafactory`/`altMetafactory` site; `None`
/// for other bootstraps and malformed arguments.
pub fn decode_lambda(call: &DynamicCall) -> Option<LambdaShape> {
    let b = &call.bootstrap.member;
    if &*b.class != "java/lang/invoke/LambdaMetafactory" {
        return None;
    }
    let alt = match &*b.name {
        "metafactory" => false,
        "altMetafactory" => true,
        _ => return None,
    };
    let args = &call.bootstrap_args;
    let (ConstValue::MethodType(sam), ConstValue::MethodHandle(imp), ConstValue::MethodType(inst)) =
        (args.first()?, args.get(1)?, args.get(2)?)
    else {
        return None;
    };
    let interface = descriptor::class_of(descriptor::return_type(&call.descriptor)?)?;
    let mut markers = Vec::new();
    let mut bridges = Vec::new();
    if alt {
        let flags = match args.get(3) {
            Some(ConstValue::Int(f)) => *f,
            _ => 0,
        };
        let mut rest = args.iter().skip(4);
        if flags & FLAG_MARKERS != 0 {
            let n = match rest.next() {
                Some(ConstValue::Int(n)) => (*n).max(0) as usize,
                _ => 0,
            };
            for v in rest.by_ref().take(n) {
                if let ConstValue::Class(c) = v {
                    markers.push(c.clone());
                }
            }
        }
        if flags & FLAG_BRIDGES != 0 {
            let n = match rest.next() {
                Some(ConstValue::Int(n)) => (*n).max(0) as usize,
                _ => 0,
            };
            for v in rest.by_ref().take(n) {
                if let ConstValue::MethodType(d) = v {
                    bridges.push(d.clone());
                }
            }
        }
        if flags & FLAG_SERIALIZABLE != 0 {
            markers.push(Arc::from("java/io/Serializable"));
        }
    }
    Some(LambdaShape {
        interface: Arc::from(interface),
        sam_name: call.name.clone(),
        sam_desc: sam.clone(),
        instantiated_desc: inst.clone(),
        bridges,
        markers,
        implementation: imp.clone(),
        captured: call.args.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use lockstep_ir::MemberRef;

    fn handle(kind: u8, class: &str, name: &str, desc: &str) -> MethodHandle {
        MethodHandle {
            kind,
            member: MemberRef {
                class: class.into(),
                name: name.into(),
                descriptor: desc.into(),
            },
            is_interface: false,
        }
    }

    fn site(bootstrap: &str, args: Vec<ConstValue>) -> DynamicCall {
        DynamicCall {
            bootstrap: handle(
                ref_kind::INVOKE_STATIC,
                "java/lang/invoke/LambdaMetafactory",
                bootstrap,
                "(...)Ljava/lang/invoke/CallSite;",
            ),
            bootstrap_args: args,
            name: "run".into(),
            descriptor: "(LMain;)Ljava/lang/Runnable;".into(),
            args: vec![lockstep_ir::Operand::Var(lockstep_ir::VarId(0))],
        }
    }

    #[test]
    fn metafactory() {
        let imp = handle(ref_kind::INVOKE_SPECIAL, "Main", "lambda$main$0", "()V");
        let call = site(
            "metafactory",
            vec![
                ConstValue::MethodType("()V".into()),
                ConstValue::MethodHandle(imp.clone()),
                ConstValue::MethodType("()V".into()),
            ],
        );
        let l = decode_lambda(&call).unwrap();
        assert_eq!(&*l.interface, "java/lang/Runnable");
        assert_eq!((&*l.sam_name, &*l.sam_desc), ("run", "()V"));
        assert_eq!(l.implementation, imp);
        assert_eq!(l.captured, 1);
        assert!(l.implements("run", "()V"));
        assert!(!l.implements("run", "(I)V"));
    }

    #[test]
    fn alt_metafactory_markers_and_bridges() {
        let imp = handle(ref_kind::INVOKE_STATIC, "Main", "lambda$f$1", "()V");
        let call = site(
            "altMetafactory",
            vec![
                ConstValue::MethodType("()V".into()),
                ConstValue::MethodHandle(imp),
                ConstValue::MethodType("()V".into()),
                ConstValue::Int(FLAG_MARKERS | FLAG_BRIDGES | FLAG_SERIALIZABLE),
                ConstValue::Int(1),
                ConstValue::Class("app/Marker".into()),
                ConstValue::Int(1),
                ConstValue::MethodType("(Ljava/lang/Object;)V".into()),
            ],
        );
        let l = decode_lambda(&call).unwrap();
        assert_eq!(
            l.markers.iter().map(|m| &**m).collect::<Vec<_>>(),
            vec!["app/Marker", "java/io/Serializable"]
        );
        assert!(l.implements("run", "(Ljava/lang/Object;)V"));
    }

    #[test]
    fn other_bootstraps_and_garbage() {
        let mut call = site("metafactory", vec![ConstValue::Int(3)]);
        assert!(decode_lambda(&call).is_none());
        call.bootstrap.member.class = "java/lang/invoke/StringConcatFactory".into();
        assert!(decode_lambda(&call).is_none());
    }
}
