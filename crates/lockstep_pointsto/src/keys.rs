//! Structural names of what the analysis reasons about: allocation sites
//! and fields. They carry no solver-assigned ids, so results of two solvers
//! (or two runs) can be compared key by key, and they print readably.

use std::fmt;
use std::sync::Arc;

use lockstep_ir::StmtId;
use lockstep_program::{MethodId, Program};

/// `ldc` of a string gives a `java.lang.String`, of a class a
/// `java.lang.Class` (JVMS §5.1): language facts, not library models.
pub(crate) const STRING: &str = "java/lang/String";
pub(crate) const CLASS: &str = "java/lang/Class";

/// What an abstract object stands for, without its heap context.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SiteKey {
    /// `new` or `newarray` at statement `stmt` of `method`; `dim > 0` names
    /// the inner arrays a multi-dimensional allocation creates at depth `dim`.
    Alloc {
        method: MethodId,
        stmt: StmtId,
        dim: u8,
    },
    /// The object a `LambdaMetafactory` `invokedynamic` creates.
    Lambda { method: MethodId, stmt: StmtId },
    /// The object a constructor reference (`Foo::new`) creates when invoked,
    /// one per lambda site.
    ConstructorRef { method: MethodId, stmt: StmtId },
    /// Every string constant (one object for all).
    StringConstant,
    /// The `Class` object of a class or array type (class literals, the
    /// lock of `static synchronized` methods).
    ClassLiteral(Arc<str>),
    /// Other constants (`MethodType`, `MethodHandle`, dynamic constants), per type.
    Constant(Arc<str>),
    /// What a method whose code is not analysed returns (natives, classes
    /// that do not load, non-lambda `invokedynamic` such as string
    /// concatenation), one per declared type.
    Opaque(Arc<str>),
    /// An object the JVM creates itself (`System.out`, the current thread), per class.
    Vm(Arc<str>),
    /// Every exception object of one class, when exception objects are merged.
    Exception(Arc<str>),
    /// Every object of one type allocated by JDK code analysed without
    /// contexts, when such objects are merged ([`crate::Config::merge_library_objects`]).
    Library(Arc<str>),
    /// The open-program harness's object of a type: the receiver of entry
    /// methods of that class.
    Entry(Arc<str>),
    /// An object from outside the analysed code, one per declaration
    /// (`origin`: a field `pkg/C.f` never assigned by analysed code or
    /// injected, an entry parameter `pkg/C.m(desc)#i`, `[]` appended for
    /// the elements of such an array) of the declared type `ty`.
    External { origin: Arc<str>, ty: Arc<str> },
    /// The shallow copies `Object.clone` makes at statement `stmt` of
    /// `method` (the call, or `super.clone()` in an override) of receivers
    /// of type `ty` (an internal name or array descriptor): one site per
    /// call and receiver type, allocated with the caller's heap context.
    Copy {
        method: MethodId,
        stmt: StmtId,
        ty: Arc<str>,
    },
    /// Never an object: the context the static entry methods (`main`) of
    /// a class run in, apart from the empty context of the JDK code that
    /// runs without contexts.
    Main(Arc<str>),
    /// Never an object: the one context of every call whose own context
    /// would exceed the context bounds ([`crate::Config::max_contexts`]).
    /// It merges those calls apart from the JDK code that runs without
    /// contexts, so over-budget application code does not share that
    /// code's copies of the methods it calls back through.
    OverBudget,
    /// Never an object: the context of a JDK callback method (one that runs
    /// in its caller's context, `lockstep_models::callbacks`) called from
    /// the over-budget copy of `method`, one per calling method. In the one
    /// over-budget copy of `StringBuilder.append(Object)` every object any
    /// over-budget caller appended was rendered by every other (on jgroups
    /// an `Address` printed by `Owner.toString` reached
    /// `UnmodifiableVector.toString`); one copy per caller keeps each
    /// caller's arguments, and the callbacks they make, to itself.
    OverBudgetCaller(MethodId),
    /// An object the container models make ([`crate::Config::container_models`]),
    /// one per container object (its heap context names the container):
    /// `part` says which (`keySet`, `values`, `entrySet`, `iterator`,
    /// `entry`, `spliterator`, `toArray`), `ty` is its type.
    ContainerPart { part: &'static str, ty: Arc<str> },
    /// Never an object: the context of the JDK container methods whose
    /// effect the container models give instead of their bodies. Call
    /// edges into it keep the call graph's JDK callees; it has no facts.
    Modelled,
}

impl SiteKey {
    /// The class of the objects constant sites of this kind denote.
    pub(crate) fn constant_class(&self) -> Option<&'static str> {
        match self {
            SiteKey::StringConstant => Some(STRING),
            SiteKey::ClassLiteral(_) => Some(CLASS),
            _ => None,
        }
    }

    /// Is this an object the program allocates (rather than a constant or
    /// a stand-in for objects made outside the analysed code)?
    pub fn is_allocation(&self) -> bool {
        matches!(
            self,
            SiteKey::Alloc { .. }
                | SiteKey::Lambda { .. }
                | SiteKey::ConstructorRef { .. }
                | SiteKey::Copy { .. }
        )
    }

    /// Does this site only ever stand for a context, never for an object?
    pub fn is_context_only(&self) -> bool {
        matches!(
            self,
            SiteKey::Main(_)
                | SiteKey::OverBudget
                | SiteKey::OverBudgetCaller(_)
                | SiteKey::Modelled
        )
    }

    /// The method and statement of an allocation, lambda, constructor-reference or copy site.
    pub fn location(&self) -> Option<(MethodId, StmtId)> {
        match self {
            SiteKey::Alloc { method, stmt, .. }
            | SiteKey::Lambda { method, stmt }
            | SiteKey::ConstructorRef { method, stmt }
            | SiteKey::Copy { method, stmt, .. } => Some((*method, *stmt)),
            _ => None,
        }
    }

    /// `new Foo @ Main.run:12`-style text for messages.
    pub fn display(&self, p: &Program) -> String {
        let at = |m: MethodId, s: StmtId| {
            let line = p
                .body(m)
                .and_then(|b| b.stmts.get(s.index()).and_then(|st| st.line));
            match line {
                Some(l) => format!("{}:{l}", p.short_method_name(m)),
                None => format!("{}#{}", p.short_method_name(m), s.0),
            }
        };
        match self {
            SiteKey::Alloc { method, stmt, dim } => {
                let ty = alloc_type(p, *method, *stmt, *dim)
                    .map(|t| t.to_string())
                    .unwrap_or_else(|| "?".to_string());
                format!("new {ty} @ {}", at(*method, *stmt))
            }
            SiteKey::Lambda { method, stmt } => format!("lambda @ {}", at(*method, *stmt)),
            SiteKey::ConstructorRef { method, stmt } => {
                format!("constructor reference @ {}", at(*method, *stmt))
            }
            SiteKey::Copy { method, stmt, ty } => {
                format!("clone of {ty} @ {}", at(*method, *stmt))
            }
            SiteKey::StringConstant => "string constant".to_string(),
            SiteKey::ClassLiteral(c) => format!("{c}.class"),
            SiteKey::Constant(t) => format!("constant {t}"),
            SiteKey::Opaque(t) => format!("opaque {t}"),
            SiteKey::Vm(t) => format!("VM {t}"),
            SiteKey::Entry(t) => format!("harness {t}"),
            SiteKey::External { origin, .. } => format!("external value of {origin}"),
            SiteKey::Exception(t) => format!("any new {t}"),
            SiteKey::Library(t) => format!("any JDK-internal {t}"),
            SiteKey::Main(t) => format!("entry of {t}"),
            SiteKey::OverBudget => "contexts over the bound".to_string(),
            SiteKey::OverBudgetCaller(m) => {
                format!("over-bound calls of {}", p.short_method_name(*m))
            }
            SiteKey::ContainerPart { part, .. } => format!("{part} of a modelled container"),
            SiteKey::Modelled => "modelled container methods".to_string(),
        }
    }
}

/// The type allocated at `stmt` of `method` at depth `dim`: the class of a
/// `new`, or the array descriptor with `dim` dimensions stripped.
pub fn alloc_type(p: &Program, method: MethodId, stmt: StmtId, dim: u8) -> Option<Arc<str>> {
    use lockstep_ir::{Rvalue, StmtKind};
    let body = p.body(method)?;
    match &body.stmts.get(stmt.index())?.kind {
        StmtKind::Assign {
            value: Rvalue::New(c),
            ..
        } if dim == 0 => Some(c.clone()),
        StmtKind::Assign {
            value: Rvalue::NewArray(desc, _),
            ..
        } => {
            let d = usize::from(dim);
            let inner = desc.get(d..)?;
            if desc.as_bytes().get(..d)?.iter().all(|&b| b == b'[') {
                Some(Arc::from(inner))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// A field of an abstract object (or a static field).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldKey {
    /// A declared field: the class that declares it (after JVMS field
    /// resolution, so `Sub.f` and `Base.f` are one field) and its name.
    Field { class: Arc<str>, name: Arc<str> },
    /// All elements of an array (one field per array object).
    Element,
    /// Captured value `n` of a lambda object.
    Capture(u16),
    /// Reference slots written through `Unsafe` with an offset the analysis
    /// does not track, on objects that are not arrays.
    Anywhere,
}

impl fmt::Display for FieldKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldKey::Field { class, name } => write!(f, "{class}.{name}"),
            FieldKey::Element => f.write_str("[*]"),
            FieldKey::Capture(n) => write!(f, "capture#{n}"),
            FieldKey::Anywhere => f.write_str("<unsafe>"),
        }
    }
}
