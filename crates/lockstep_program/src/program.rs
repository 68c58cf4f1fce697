//! The set of classes under analysis: application classes (reported on),
//! handed over parsed at construction, and library classes (JDK, `-cp`),
//! pulled from a [`ClassProvider`] the first time anything needs them.
//!
//! Laziness and concurrency: classes and methods live in append-only arenas
//! (see `arena`), so `class(id)` and `method(id)` hand out plain references
//! while other threads load more classes. Loading is serialised by one
//! mutex and never looks at the hierarchy; hierarchy facts (`super_class`,
//! `supertypes`) are computed on first use per class and cached in
//! `OnceLock`s; bodies are lowered on first use and cached likewise, so
//! `Program` is `Sync` and detectors may share it across threads.
//!
//! Determinism: application classes get ids `0..n` in name order. Library
//! classes get ids in the order they are first asked for; every algorithm
//! of this crate asks in a deterministic order (sequential worklists), so
//! ids are reproducible for a given sequence of calls. Code that asks from
//! several threads at once should order its output by names, not ids; a
//! sequential phase that runs beside other work claims the loading window
//! (`window`, [`Program::exclusive_loading`]) so its loads keep their ids.
//!
//! What this module does not know: what a body means (see `callgraph`,
//! `threads`), or where bytes come from (the provider).

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};
use std::time::Instant;

use lockstep_classfile::{access, ClassFile, MethodInfo};
use lockstep_ir::Body;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::arena::AppendVec;
use crate::provider::ClassProvider;
use crate::window::LoadingWindow;

/// A class of the program (application or library).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClassId(pub u32);

/// A method of a class of the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MethodId(pub u32);

impl ClassId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl MethodId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Something wrong with the input that the model worked around: a class
/// that does not parse, a missing super type, a body that does not lower.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Problem {
    /// Where the class came from (application origin, or the class name for library classes).
    pub origin: String,
    /// `Class.name(desc)` when a method is to blame.
    pub method: Option<String>,
    pub message: String,
    /// For a super type that is not on the class path: its internal name,
    /// so callers can group these (one missing jar explains many).
    pub missing_class: Option<Arc<str>>,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.method {
            Some(m) => write!(f, "{}: {}: {}", self.origin, m, self.message),
            None => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

/// A loaded class.
#[derive(Debug)]
pub struct ClassInfo {
    pub id: ClassId,
    /// Internal name.
    pub name: Arc<str>,
    /// Display origin: the file or jar entry of an application class, `library` otherwise.
    pub origin: Arc<str>,
    pub is_application: bool,
    pub file: ClassFile,
    /// The class's methods, in class-file order (contiguous ids).
    pub methods: Vec<MethodId>,
    by_name: FxHashMap<Arc<str>, Vec<(Arc<str>, MethodId)>>,
    pub(crate) direct: OnceLock<DirectSupers>,
    pub(crate) supertypes: OnceLock<Box<[ClassId]>>,
    pub(crate) superclass_chain: OnceLock<Box<[ClassId]>>,
}

/// The direct super types that could be loaded.
#[derive(Debug, Clone, Default)]
pub(crate) struct DirectSupers {
    pub(crate) super_class: Option<ClassId>,
    pub(crate) interfaces: Vec<ClassId>,
}

impl ClassInfo {
    pub fn access_flags(&self) -> u16 {
        self.file.access_flags
    }
    pub fn is_interface(&self) -> bool {
        self.file.access_flags & access::INTERFACE != 0
    }
    pub fn is_abstract(&self) -> bool {
        self.file.access_flags & access::ABSTRACT != 0
    }
    /// Neither abstract nor an interface: `new` may create one.
    pub fn is_concrete(&self) -> bool {
        self.file.access_flags & (access::ABSTRACT | access::INTERFACE) == 0
    }
    pub fn is_public(&self) -> bool {
        self.file.access_flags & access::PUBLIC != 0
    }
    /// The method declared in this class with this name and descriptor.
    pub fn declared_method(&self, name: &str, desc: &str) -> Option<MethodId> {
        self.by_name
            .get(name)?
            .iter()
            .find(|(d, _)| &**d == desc)
            .map(|(_, m)| *m)
    }
    /// Methods declared in this class with this name (any descriptor).
    pub fn declared_methods_named(&self, name: &str) -> impl Iterator<Item = MethodId> + '_ {
        self.by_name
            .get(name)
            .into_iter()
            .flat_map(|v| v.iter().map(|(_, m)| *m))
    }
}

/// A method of a loaded class. The class-file view is [`Program::method_info`].
#[derive(Debug)]
pub struct MethodData {
    pub id: MethodId,
    pub class: ClassId,
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
    pub access_flags: u16,
    /// Index into the class file's `methods`.
    pub index: usize,
    body: OnceLock<Option<Arc<Body>>>,
}

impl MethodData {
    pub fn is_static(&self) -> bool {
        self.access_flags & access::STATIC != 0
    }
    pub fn is_abstract(&self) -> bool {
        self.access_flags & access::ABSTRACT != 0
    }
    pub fn is_private(&self) -> bool {
        self.access_flags & access::PRIVATE != 0
    }
    pub fn is_public(&self) -> bool {
        self.access_flags & access::PUBLIC != 0
    }
    pub fn is_protected(&self) -> bool {
        self.access_flags & access::PROTECTED != 0
    }
    pub fn is_native(&self) -> bool {
        self.access_flags & access::NATIVE != 0
    }
    pub fn is_bridge(&self) -> bool {
        self.access_flags & access::BRIDGE != 0
    }
    pub fn is_synchronized(&self) -> bool {
        self.access_flags & access::SYNCHRONIZED != 0
    }
    pub fn is_constructor(&self) -> bool {
        &*self.name == "<init>"
    }
    pub fn is_class_initializer(&self) -> bool {
        &*self.name == "<clinit>"
    }
    /// Whether the body has been lowered already (successfully or not).
    pub fn is_lowered(&self) -> bool {
        self.body.get().is_some()
    }
}

/// Counters of [`Program::lower_all_application`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LowerStats {
    /// Methods with code.
    pub methods: usize,
    pub lowered: usize,
    pub failed: usize,
    pub statements: u64,
    pub millis: u128,
}

/// Size of the program model so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProgramStats {
    pub application_classes: usize,
    pub library_classes: usize,
    pub methods: usize,
    pub bodies_lowered: usize,
    pub lowering_failures: usize,
    pub statements_lowered: u64,
    pub problems: usize,
}

/// All loaded classes, with lazy library loading and lazy lowering.
pub struct Program {
    classes: AppendVec<ClassInfo>,
    methods: AppendVec<MethodData>,
    by_name: RwLock<FxHashMap<Arc<str>, Option<ClassId>>>,
    load_lock: Mutex<()>,
    /// Who alone may load now (`window`).
    window: LoadingWindow,
    library: Box<dyn ClassProvider>,
    app_count: usize,
    problems: Mutex<Vec<Problem>>,
    bodies: AtomicUsize,
    failures: AtomicUsize,
    statements: AtomicU64,
    /// The program's lock wrappers, found on first use.
    lock_wrappers: OnceLock<crate::wrappers::LockWrappers>,
}

/// Used as `origin` of library classes.
const LIBRARY: &str = "library";

impl Program {
    /// A program of the application classes `app` (each with a display
    /// origin), resolving everything else through `library` on demand.
    /// Application classes are numbered in name order; of two classes with
    /// the same name the first given wins and the other is a problem.
    pub fn new(app: Vec<(String, ClassFile)>, library: Box<dyn ClassProvider>) -> Program {
        let program = Program {
            classes: AppendVec::new(),
            methods: AppendVec::new(),
            by_name: RwLock::new(FxHashMap::default()),
            load_lock: Mutex::new(()),
            window: LoadingWindow::default(),
            library,
            app_count: 0,
            problems: Mutex::new(Vec::new()),
            bodies: AtomicUsize::new(0),
            failures: AtomicUsize::new(0),
            statements: AtomicU64::new(0),
            lock_wrappers: OnceLock::new(),
        };
        let mut app = app;
        // Stable: for equal names the order given decides who wins.
        app.sort_by(|a, b| a.1.this_class.cmp(&b.1.this_class));
        let mut count = 0;
        let mut last: Option<Arc<str>> = None;
        for (origin, file) in app {
            if last.as_deref() == Some(&*file.this_class) {
                program.problem(
                    origin,
                    None,
                    format!("duplicate class {} ignored", file.this_class),
                );
                continue;
            }
            last = Some(file.this_class.clone());
            let name = file.this_class.clone();
            let guard = program.lock_loader();
            let id = program.register(&guard, Arc::from(origin.as_str()), file, true);
            drop(guard);
            program.names_write().insert(name, id);
            if id.is_some() {
                count += 1;
            }
        }
        Program {
            app_count: count,
            ..program
        }
    }

    pub(crate) fn loading_window(&self) -> &LoadingWindow {
        &self.window
    }

    fn lock_loader(&self) -> MutexGuard<'_, ()> {
        self.load_lock.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn names_write(&self) -> std::sync::RwLockWriteGuard<'_, FxHashMap<Arc<str>, Option<ClassId>>> {
        self.by_name.write().unwrap_or_else(|e| e.into_inner())
    }

    fn names_read(&self) -> std::sync::RwLockReadGuard<'_, FxHashMap<Arc<str>, Option<ClassId>>> {
        self.by_name.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn problem(
        &self,
        origin: impl Into<String>,
        method: Option<String>,
        message: String,
    ) {
        self.problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Problem {
                origin: origin.into(),
                method,
                message,
                missing_class: None,
            });
    }

    /// A super type of a loaded class is on no class path.
    pub(crate) fn missing_super(
        &self,
        origin: impl Into<String>,
        missing: Arc<str>,
        message: String,
    ) {
        self.problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Problem {
                origin: origin.into(),
                method: None,
                message,
                missing_class: Some(missing),
            });
    }

    /// Adds a class and its methods; `None` only if the arenas are full.
    /// The caller holds the load lock (the guard proves it), so the
    /// methods of one class get contiguous ids and the class the next id.
    fn register(
        &self,
        _load_lock: &MutexGuard<'_, ()>,
        origin: Arc<str>,
        file: ClassFile,
        is_application: bool,
    ) -> Option<ClassId> {
        let class_index = self.classes.len();
        let class = ClassId(u32::try_from(class_index).ok()?);
        let mut methods = Vec::with_capacity(file.methods.len());
        let mut by_name: FxHashMap<Arc<str>, Vec<(Arc<str>, MethodId)>> = FxHashMap::default();
        for (index, m) in file.methods.iter().enumerate() {
            let i = self.methods.push_with(|i| MethodData {
                id: MethodId(i as u32),
                class,
                name: m.name.clone(),
                descriptor: m.descriptor.clone(),
                access_flags: m.access_flags,
                index,
                body: OnceLock::new(),
            })?;
            let id = MethodId(u32::try_from(i).ok()?);
            methods.push(id);
            by_name
                .entry(m.name.clone())
                .or_default()
                .push((m.descriptor.clone(), id));
        }
        let name = file.this_class.clone();
        let pushed = self.classes.push_with(|_| ClassInfo {
            id: class,
            name,
            origin,
            is_application,
            file,
            methods,
            by_name,
            direct: OnceLock::new(),
            supertypes: OnceLock::new(),
            superclass_chain: OnceLock::new(),
        })?;
        (pushed == class_index).then_some(class)
    }

    /// The class named `internal` (`java/lang/Thread`), loading it from the
    /// library on first request. Array descriptors and unknown names give `None`.
    pub fn class_by_name(&self, internal: &str) -> Option<ClassId> {
        if internal.is_empty() || internal.starts_with('[') {
            return None;
        }
        if let Some(found) = self.names_read().get(internal) {
            return *found;
        }
        // Not while another thread loads alone (`window`); holds no lock.
        self.window.wait_to_load();
        let loaded = self.load_library_class(internal);
        let mut names = self.names_write();
        // Another thread may have loaded it meanwhile: the first entry stays.
        *names.entry(Arc::from(internal)).or_insert(loaded)
    }

    fn load_library_class(&self, internal: &str) -> Option<ClassId> {
        // Serialise loads of the same name: re-check under the load lock.
        let guard = self.lock_loader();
        if let Some(found) = self.names_read().get(internal) {
            return *found;
        }
        let bytes = match self.library.load(internal)? {
            Ok(b) => b,
            Err(message) => {
                self.problem(
                    internal,
                    None,
                    format!("cannot read library class: {message}"),
                );
                return None;
            }
        };
        let file = match lockstep_classfile::parse(&bytes) {
            Ok(f) => f,
            Err(e) => {
                self.problem(internal, None, format!("cannot parse library class: {e}"));
                return None;
            }
        };
        if &*file.this_class != internal {
            self.problem(
                internal,
                None,
                format!("library class file defines {} instead", file.this_class),
            );
            return None;
        }
        let id = self.register(&guard, Arc::from(LIBRARY), file, false);
        // Publish before releasing the load lock, so no other thread loads it again.
        self.names_write().insert(Arc::from(internal), id);
        drop(guard);
        id
    }

    /// The class named `internal` if it is loaded already (never loads).
    pub fn loaded_class(&self, internal: &str) -> Option<ClassId> {
        self.names_read().get(internal).copied().flatten()
    }

    /// The program's lock wrapper methods (`crate::wrappers`), found
    /// from the application classes on first use; loads no class.
    pub fn lock_wrappers(&self) -> &crate::wrappers::LockWrappers {
        self.lock_wrappers
            .get_or_init(|| crate::wrappers::LockWrappers::build(self))
    }

    /// A loaded class. Ids come from this program, so this only fails
    /// (panics) when given an id of another program.
    pub fn class(&self, id: ClassId) -> &ClassInfo {
        match self.classes.get(id.index()) {
            Some(c) => c,
            None => panic!("ClassId {} does not belong to this program", id.0),
        }
    }

    /// A loaded class, or `None` for a foreign id.
    pub fn try_class(&self, id: ClassId) -> Option<&ClassInfo> {
        self.classes.get(id.index())
    }

    /// A method. Panics only for an id of another program.
    pub fn method(&self, id: MethodId) -> &MethodData {
        match self.methods.get(id.index()) {
            Some(m) => m,
            None => panic!("MethodId {} does not belong to this program", id.0),
        }
    }

    /// A method, or `None` for a foreign id.
    pub fn try_method(&self, id: MethodId) -> Option<&MethodData> {
        self.methods.get(id.index())
    }

    /// The class-file view of a method (annotations, exceptions, code).
    pub fn method_info(&self, id: MethodId) -> Option<&MethodInfo> {
        let m = self.try_method(id)?;
        self.try_class(m.class)?.file.methods.get(m.index)
    }

    pub fn is_application(&self, id: ClassId) -> bool {
        self.try_class(id).is_some_and(|c| c.is_application)
    }

    /// Application classes, in id (= name) order.
    pub fn application_classes(&self) -> impl Iterator<Item = ClassId> + '_ {
        (0..self.app_count as u32).map(ClassId)
    }

    /// Every class loaded so far, in id order.
    pub fn loaded_classes(&self) -> impl Iterator<Item = ClassId> + '_ {
        (0..self.classes.len() as u32).map(ClassId)
    }

    /// Number of methods loaded so far.
    pub fn method_count(&self) -> usize {
        self.methods.len()
    }

    /// `Class.name(desc)` for messages.
    pub fn method_name(&self, id: MethodId) -> String {
        match self.try_method(id) {
            Some(m) => {
                let class = self.try_class(m.class).map(|c| &*c.name).unwrap_or("?");
                format!("{class}.{}{}", m.name, m.descriptor)
            }
            None => format!("<method {}>", id.0),
        }
    }

    /// `Class.name` (no descriptor) with the class's simple name, for short messages.
    pub fn short_method_name(&self, id: MethodId) -> String {
        match self.try_method(id) {
            Some(m) => {
                let class = self.try_class(m.class).map(|c| &*c.name).unwrap_or("?");
                let simple = class.rsplit('/').next().unwrap_or(class);
                format!("{simple}.{}", m.name)
            }
            None => format!("<method {}>", id.0),
        }
    }

    /// The lowered body of a method, lowered on first request and cached.
    /// `None` for abstract and native methods and when lowering fails (the
    /// failure is recorded as a [`Problem`]).
    pub fn body(&self, id: MethodId) -> Option<Arc<Body>> {
        let m = self.try_method(id)?;
        m.body.get_or_init(|| self.lower(m)).clone()
    }

    fn lower(&self, m: &MethodData) -> Option<Arc<Body>> {
        let class = self.try_class(m.class)?;
        let info = class.file.methods.get(m.index)?;
        info.code.as_ref()?;
        // A panic in lowering is a bug there, but one bad method must not
        // take the whole analysis down: record it and carry on.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::lower::lower(&class.file, info)
        }))
        .unwrap_or_else(|_| Err("lowering panicked".to_string()));
        match result {
            Ok(body) => {
                self.bodies.fetch_add(1, Ordering::Relaxed);
                self.statements
                    .fetch_add(body.stmts.len() as u64, Ordering::Relaxed);
                Some(Arc::new(body))
            }
            Err(message) => {
                self.failures.fetch_add(1, Ordering::Relaxed);
                let origin = if class.is_application {
                    class.origin.to_string()
                } else {
                    class.name.to_string()
                };
                self.problem(
                    origin,
                    Some(format!("{}.{}{}", class.name, m.name, m.descriptor)),
                    message,
                );
                None
            }
        }
    }

    /// Lowers every method of every application class, in parallel.
    pub fn lower_all_application(&self) -> LowerStats {
        let start = Instant::now();
        let ids: Vec<MethodId> = self
            .application_classes()
            .flat_map(|c| self.class(c).methods.iter().copied())
            .filter(|&m| self.method_info(m).is_some_and(|i| i.code.is_some()))
            .collect();
        let (lowered, statements) = ids
            .par_iter()
            .map(|&m| match self.body(m) {
                Some(b) => (1usize, b.stmts.len() as u64),
                None => (0, 0),
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        LowerStats {
            methods: ids.len(),
            lowered,
            failed: ids.len() - lowered,
            statements,
            millis: start.elapsed().as_millis(),
        }
    }

    /// Lowers the given methods in parallel (warming the cache before a
    /// sequential pass that needs them all).
    /// The owner of the loading window lowers them itself: waiting for
    /// rayon jobs could run other work on its stack (`window`).
    pub fn prefetch_bodies(&self, ids: &[MethodId]) {
        if self.window.owned_here() {
            for &m in ids {
                let _ = self.body(m);
            }
            return;
        }
        ids.par_iter().for_each(|&m| {
            let _ = self.body(m);
        });
    }

    /// Problems met so far, sorted.
    pub fn problems(&self) -> Vec<Problem> {
        let mut v = self
            .problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        v.sort();
        v.dedup();
        v
    }

    pub fn stats(&self) -> ProgramStats {
        let classes = self.classes.len();
        ProgramStats {
            application_classes: self.app_count,
            library_classes: classes - self.app_count,
            methods: self.methods.len(),
            bodies_lowered: self.bodies.load(Ordering::Relaxed),
            lowering_failures: self.failures.load(Ordering::Relaxed),
            statements_lowered: self.statements.load(Ordering::Relaxed),
            problems: self.problems.lock().map(|p| p.len()).unwrap_or(0),
        }
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}
