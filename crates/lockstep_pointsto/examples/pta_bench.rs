//! Times the points-to analysis on a jar, with the JDK as library:
//!
//! ```text
//! cargo run --release -p lockstep_pointsto --example pta_bench -- APP.jar [options]
//!   --jdk HOME        JDK home (default: $JAVA_HOME-like search as the CLI does)
//!   --main            use the jar's main methods when it has any (default: open program)
//!   --config NAME     default | insensitive | 1obj | 2obj | 2obj-all | obcaller | obshared | ctors-bounded | callbacks-per-receiver | cheap (repeatable)
//!   --rta             also time RTA and check the points-to call edges are a subset of it
//! ```
//!
//! Prints, per configuration: solve time, reachable methods, method
//! contexts, objects, pointers, points-to facts, call edges, and the
//! process's peak resident memory so far (`VmHWM`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use lockstep_classpath::Library;
use lockstep_pointsto::{Config, LibraryContexts, PointsTo, Sensitivity};
use lockstep_program::{entry_points, rta, ClassProvider, Program};

fn config_named(name: &str) -> Option<Config> {
    Some(match name {
        "default" => Config::default(),
        "insensitive" => Config::insensitive(),
        "insensitive-noexc" => Config {
            exceptions: false,
            ..Config::insensitive()
        },
        "1obj" => Config {
            sensitivity: Sensitivity::Object { k: 1, heap: 0 },
            ..Config::default()
        },
        "2obj" => Config::default(),
        "2obj-nobound" => Config {
            max_contexts_per_method: None,
            max_contexts: None,
            ..Config::default()
        },
        "2obj-all" => Config::object(2, 1),
        "2obj-40k" => Config {
            max_contexts: Some(40_000),
            ..Config::default()
        },
        "2obj-100k" => Config {
            max_contexts: Some(100_000),
            ..Config::default()
        },
        "obcaller" => Config {
            past_bound_calls_per_caller: true,
            ..Config::default()
        },
        "oball" => Config {
            past_bound_calls_per_caller: true,
            past_bound_calls_all: true,
            ..Config::default()
        },
        "obshared" => Config {
            past_bound_calls_per_caller: false,
            ..Config::default()
        },
        "applist" => Config {
            containers_per_object: true,
            ..Config::default()
        },
        "ctors-bounded" => Config {
            constructors_per_object: false,
            ..Config::default()
        },
        "callbacks-per-receiver" => Config {
            callbacks_per_receiver: true,
            ..Config::default()
        },

        "2obj-cap64" => Config {
            max_contexts_per_method: Some(64),
            max_contexts: None,
            ..Config::default()
        },
        "2obj-small" => Config {
            max_contexts_per_method: Some(8),
            max_contexts: Some(5_000),
            ..Config::default()
        },
        "1obj-cap16" => Config {
            sensitivity: Sensitivity::Object { k: 1, heap: 0 },
            max_contexts_per_method: Some(16),
            ..Config::default()
        },
        "2obj-nojdk" => Config {
            library: LibraryContexts::None,
            ..Config::default()
        },
        "cheap" => Config {
            library: LibraryContexts::None,
            max_contexts_per_method: Some(16),
            ..Config::default()
        },
        _ => return None,
    })
}

fn peak_rss_mib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// The process's CPU time (user + system) so far, in seconds, from
/// `/proc/self/stat` (clock ticks of 10 ms): on a loaded machine the
/// solve's wall time says little.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses.
    let rest = s.get(s.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut jar: Option<PathBuf> = None;
    let mut jdk: Option<PathBuf> = None;
    let mut open = true;
    let mut configs: Vec<(String, Config)> = Vec::new();
    let mut with_rta = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--jdk" => jdk = args.next().map(PathBuf::from),
            "--main" => open = false,
            "--rta" => with_rta = true,
            "--config" => {
                let n = args.next().unwrap_or_default();
                match config_named(&n) {
                    Some(c) => configs.push((n, c)),
                    None => {
                        eprintln!("unknown config {n}");
                        std::process::exit(2);
                    }
                }
            }
            _ => jar = Some(PathBuf::from(a)),
        }
    }
    let Some(jar) = jar else {
        eprintln!("usage: pta_bench APP.jar [--jdk HOME] [--main] [--config NAME]... [--rta]");
        std::process::exit(2);
    };
    if configs.is_empty() {
        configs.push(("default".into(), Config::default()));
    }
    let home = match lockstep_classpath::find_jdk(jdk.as_deref()) {
        Ok(h) => h,
        Err(p) => {
            eprintln!("no JDK: {p}");
            std::process::exit(2);
        }
    };
    let t = Instant::now();
    let (app_lib, problems) = Library::open(std::slice::from_ref(&jar));
    for p in problems.iter().take(3) {
        eprintln!("problem: {p}");
    }
    let names: Vec<String> = app_lib.class_names().map(str::to_string).collect();
    let app: Vec<(String, lockstep_classfile::ClassFile)> = names
        .iter()
        .filter_map(|n| {
            let bytes = app_lib.load(n)?.ok()?;
            let file = lockstep_classfile::parse(&bytes.bytes).ok()?;
            Some((bytes.origin.to_string(), file))
        })
        .collect();
    println!(
        "{}: {} classes read+parsed in {:?}; JDK {}",
        jar.display(),
        app.len(),
        t.elapsed(),
        home.display()
    );
    for (name, config) in configs {
        // A fresh program per configuration: each run pays for its own
        // lowering and library loading, as a real run would.
        let lib = match Library::jdk(Path::new(&home)) {
            Ok(l) => l,
            Err(p) => {
                eprintln!("cannot read the JDK: {p}");
                std::process::exit(2);
            }
        };
        let provider: Box<dyn ClassProvider> = Box::new(move |n: &str| {
            lib.load(n)
                .map(|r| r.map(|c| c.bytes).map_err(|p| p.to_string()))
        });
        let p = Program::new(app.clone(), provider);
        let entries = entry_points(&p, open);
        let t = Instant::now();
        let cpu0 = cpu_seconds().unwrap_or(0.0);
        let r = PointsTo::solve(&p, &entries, config);
        let solve = t.elapsed();
        let solve_cpu = cpu_seconds().unwrap_or(0.0) - cpu0;
        let s = r.stats();
        println!(
            "[{name}] {}: {} entries ({}), solve {:.2} s, cpu {:.2} s",
            s.config,
            entries.methods.len(),
            entries.mode.describe(),
            solve.as_secs_f64(),
            solve_cpu
        );
        println!(
            "  reachable methods {}, method contexts {}, contexts {}, objects {} ({} sites), pointers {}, points-to facts {}, copy edges {}, call edges {} ({} with contexts), iterations {}, budget fallbacks {}, set memory {} MiB, peak RSS {} MiB",
            s.reachable_methods,
            s.method_contexts,
            s.contexts,
            s.objects,
            s.sites,
            s.pointers,
            s.points_to_facts,
            s.copy_edges,
            s.call_edges,
            s.context_call_edges,
            s.iterations,
            s.budget_fallbacks,
            s.set_bytes >> 20,
            peak_rss_mib().unwrap_or(0)
        );
        println!(
            "  facts: vars {}, fields {}, statics {}, exceptions {}",
            s.var_facts, s.field_facts, s.static_facts, s.exception_facts
        );
        println!(
            "  thread starts reaching a task: {}",
            r.thread_starts().len()
        );
        if std::env::var_os("PTA_CONTEXTS").is_some() {
            print_context_spread(&p, &r);
        }
        if std::env::var_os("PTA_OBC").is_some() {
            print_per_caller_copies(&p, &r);
        }
        if let Ok(specs) = std::env::var("PTA_PATH") {
            // Several paths separated by `;`.
            for spec in specs.split(';') {
                print_context_path(&p, &r, spec);
            }
        }
        if let Ok(spec) = std::env::var("PTA_STORES") {
            print_stores(&p, &r, &spec);
        }
        if std::env::var_os("PTA_EXTERNAL").is_some() {
            print_external_contexts(&p, &r);
        }
        if let Ok(spec) = std::env::var("PTA_PARAM") {
            print_param(&p, &r, &spec);
        }
        if let Ok(ty) = std::env::var("PTA_RETURNS") {
            print_returns(&p, &r, &ty);
        }
        if let Ok(ty) = std::env::var("PTA_WHO") {
            print_holders(&p, &r, &ty);
        }
        if std::env::var_os("PTA_FIELDS").is_some() {
            let mut v: Vec<(usize, String)> = Vec::new();
            let mut per_obj: Vec<(usize, String)> = Vec::new();
            for o in r.objects() {
                let mut total = 0;
                for (f, set) in r.fields_of(o) {
                    total += set.len();
                    if set.len() > 500 {
                        v.push((set.len(), format!("{} . {f}", r.describe_object(&p, o))));
                    }
                }
                per_obj.push((
                    total,
                    format!(
                        "{} ({} fields)",
                        r.describe_object(&p, o),
                        r.fields_of(o).len()
                    ),
                ));
            }
            v.sort_by_key(|x| std::cmp::Reverse(x.0));
            per_obj.sort_by_key(|x| std::cmp::Reverse(x.0));
            println!("  field pointers > 500: {}", v.len());
            for (n, s) in v.iter().take(25) {
                println!("    {n:6} {s}");
            }
            for (n, s) in per_obj.iter().take(15) {
                println!("    obj total {n:7} {s}");
            }
        }
        if std::env::var_os("PTA_TOP").is_some() {
            // The largest variable points-to sets (merged over contexts).
            let mut sizes: Vec<(usize, String)> = Vec::new();
            for &m in &r.call_graph().reachable {
                let Some(b) = p.body(m) else { continue };
                for (i, v) in b.vars.iter().enumerate() {
                    let n = r.var(m, lockstep_ir::VarId(i as u32)).len();
                    if n > 200 {
                        sizes.push((
                            n,
                            format!("{} v{i} {:?} {:?}", p.method_name(m), v.ty, v.origin),
                        ));
                    }
                }
            }
            sizes.sort_by_key(|x| std::cmp::Reverse(x.0));
            // Types of the biggest non-`Object.<init>` set.
            let mut biggest: Option<(usize, lockstep_pointsto::ObjectSet)> = None;
            for &m in &r.call_graph().reachable {
                if p.method(m).is_constructor() {
                    continue;
                }
                let Some(b) = p.body(m) else { continue };
                for i in 0..b.vars.len() {
                    let set = r.var(m, lockstep_ir::VarId(i as u32));
                    if biggest.as_ref().is_none_or(|(n, _)| set.len() > *n) {
                        biggest = Some((set.len(), set));
                    }
                }
            }
            if let Some((_, set)) = biggest {
                let mut by_type: std::collections::BTreeMap<String, usize> = Default::default();
                let mut by_kind: std::collections::BTreeMap<String, usize> = Default::default();
                for o in set.iter() {
                    let info = r.object(o).unwrap();
                    *by_type.entry(info.type_name.to_string()).or_default() += 1;
                    let k = format!("{:?}", info.site)
                        .split(['(', ' ', '{'])
                        .next()
                        .unwrap_or("")
                        .to_string();
                    *by_kind.entry(k).or_default() += 1;
                }
                let mut v: Vec<_> = by_type.into_iter().collect();
                v.sort_by_key(|x| std::cmp::Reverse(x.1));
                println!("  biggest set by type: {:?}", &v[..v.len().min(25)]);
                println!("  biggest set by kind: {by_kind:?}");
            }
            println!("  vars with >200 objects: {}", sizes.len());
            let mut prints: std::collections::HashMap<(usize, u64, u64), usize> =
                Default::default();
            let mut total_big = 0usize;
            for &m in &r.call_graph().reachable {
                let Some(b) = p.body(m) else { continue };
                for i in 0..b.vars.len() {
                    let set = r.var(m, lockstep_ir::VarId(i as u32));
                    if set.len() > 50 {
                        total_big += set.len();
                        let sum: u64 = set.iter().map(|o| o.0 as u64).sum();
                        let x: u64 = set
                            .iter()
                            .fold(0, |a, o| a ^ ((o.0 as u64) * 0x9E3779B97F4A7C15));
                        *prints.entry((set.len(), sum, x)).or_default() += 1;
                    }
                }
            }
            let distinct: usize = prints.keys().map(|k| k.0).sum();
            println!("  facts in var sets > 50: {total_big}; in distinct such sets: {distinct} ({} distinct sets)", prints.len());
            for (n, s) in sizes.iter().take(40) {
                println!("    {n:6} {s}");
            }
            let rg = rta(&p, &entries);
            let extra: Vec<_> = r
                .call_graph()
                .reachable
                .iter()
                .filter(|m| !rg.is_reachable(**m))
                .collect();
            println!("  reachable in points-to, not in RTA: {}", extra.len());
            let mut shown = 0;
            for o in r.objects() {
                let info = r.object(o).unwrap();
                if info.type_name.starts_with('[') || info.type_name.starts_with("lambda@") {
                    continue;
                }
                let live = p
                    .class_by_name(info.type_name)
                    .is_some_and(|c| rg.is_instantiated(c));
                if !live && shown < 15 {
                    shown += 1;
                    println!("    object not live in RTA: {}", r.describe_object(&p, o));
                }
            }
            for m in extra.iter().take(10) {
                let callers: Vec<String> = r
                    .call_graph()
                    .callers(**m)
                    .take(3)
                    .map(|e| format!("{} ({:?})", p.method_name(e.caller), e.kind))
                    .collect();
                println!("    {} <- {:?}", p.method_name(**m), callers);
            }
        }
        if with_rta {
            let t = Instant::now();
            let g = rta(&p, &entries);
            let rta_time = t.elapsed();
            let mut missing = 0usize;
            let mut shown = 0;
            for e in &r.call_graph().edges {
                if g.edges.binary_search(e).is_err() {
                    missing += 1;
                    if shown < 10 {
                        shown += 1;
                        println!(
                            "  not in RTA: {} @{} -> {} ({:?})",
                            p.method_name(e.caller),
                            e.site.0,
                            p.method_name(e.callee),
                            e.kind
                        );
                    }
                }
            }
            println!(
                "  RTA {:.2} s: {} reachable, {} edges; points-to edges not in RTA: {missing}",
                rta_time.as_secs_f64(),
                g.reachable.len(),
                g.edges.len()
            );
        }
    }
}

/// The shortest chain of context call edges from a method whose name
/// contains `FROM` to one whose name contains `TO` (`PTA_PATH=FROM>TO;…`),
/// each frame with its context: where a call edge is made, and in which
/// context, edge by edge (`PTA_PATH_JDK=1`: with only JDK frames between).
fn print_context_path(p: &Program, r: &lockstep_pointsto::PointsToResult, spec: &str) {
    use lockstep_pointsto::MethodContext;
    use std::collections::{HashMap, VecDeque};
    let Some((from, to)) = spec.split_once('>') else {
        println!("  PTA_PATH wants FROM>TO");
        return;
    };
    let describe = |mc: MethodContext| {
        let ctx: Vec<String> = r.context(mc.context).iter().map(|s| s.display(p)).collect();
        format!("{} [{}]", p.method_name(mc.method), ctx.join(", "))
    };
    let mut parent: HashMap<MethodContext, Option<(MethodContext, u32)>> = HashMap::new();
    let mut queue = VecDeque::new();
    for mc in r.method_contexts() {
        if p.method_name(mc.method).contains(from) {
            parent.insert(mc, None);
            queue.push_back(mc);
        }
    }
    while let Some(mc) = queue.pop_front() {
        if p.method_name(mc.method).contains(to) {
            let mut chain = vec![(mc, None)];
            let mut cur = mc;
            while let Some(Some((up, site))) = parent.get(&cur).copied() {
                chain.push((up, Some(site)));
                cur = up;
            }
            chain.reverse();
            println!("  path {from} > {to}:");
            for (mc, site) in chain {
                let at = site.map(|s| format!(" @{s}")).unwrap_or_default();
                println!("    {}{at}", describe(mc));
            }
            return;
        }
        // `PTA_PATH_JDK=1`: only through JDK frames between the two ends.
        let through_jdk = std::env::var_os("PTA_PATH_JDK").is_some();
        if through_jdk
            && parent.get(&mc).is_some_and(Option::is_some)
            && !lockstep_models::is_jdk_class(&p.class(p.method(mc.method).class).name)
        {
            continue;
        }
        for e in r.context_callees(mc) {
            if let std::collections::hash_map::Entry::Vacant(slot) = parent.entry(e.callee) {
                slot.insert(Some((mc, e.site.0)));
                queue.push_back(e.callee);
            }
        }
    }
    println!("  no path {from} > {to}");
}

/// Which variables of JDK methods in the empty context, and which fields
/// of objects without heap context, hold an object whose type contains
/// `ty` (`PTA_WHO=ty`): where the JDK's shared copies see it.
fn print_holders(p: &Program, r: &lockstep_pointsto::PointsToResult, ty: &str) {
    let holds = |set: &lockstep_pointsto::ObjectSet| {
        set.iter()
            .any(|o| r.object(o).is_some_and(|i| i.type_name.contains(ty)))
    };
    let mut shown = 0;
    for mc in r.method_contexts() {
        if !r.context(mc.context).is_empty()
            || !lockstep_models::is_jdk_class(&p.class(p.method(mc.method).class).name)
        {
            continue;
        }
        let Some(b) = p.body(mc.method) else { continue };
        for i in 0..b.vars.len() {
            let set = r.var_in(mc.method, mc.context, lockstep_ir::VarId(i as u32));
            if holds(&set) && shown < 200 {
                shown += 1;
                println!(
                    "    var {} v{i} ({} objects)",
                    p.method_name(mc.method),
                    set.len()
                );
            }
        }
    }
    for o in r.objects() {
        for (f, set) in r.fields_of(o) {
            if holds(&set) && shown < 400 {
                shown += 1;
                println!(
                    "    field {} .{f} ({} objects)",
                    r.describe_object(p, o),
                    set.len()
                );
            }
        }
    }
}

/// What a method is, for the spread of method contexts: application code,
/// a JDK container (`keeps_object_contexts`), a JDK method running in its
/// caller's context (`callbacks`), or other JDK code.
fn method_kind(p: &Program, m: lockstep_program::MethodId) -> &'static str {
    let md = p.method(m);
    let class = &p.class(md.class).name;
    if !lockstep_models::is_jdk_class(class) {
        "application"
    } else if lockstep_models::runs_in_caller_context(class, &md.name, &md.descriptor) {
        "JDK callback"
    } else if lockstep_models::keeps_object_contexts(class) {
        "JDK container"
    } else {
        "JDK other"
    }
}

/// Where the method contexts go: per kind of method (and how many of them
/// run in the over-budget context), the classes and methods with most.
fn print_context_spread(p: &Program, r: &lockstep_pointsto::PointsToResult) {
    use std::collections::BTreeMap;
    let mut by_kind: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut by_class: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_method: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_ctx_site: BTreeMap<String, usize> = BTreeMap::new();
    for mc in r.method_contexts() {
        let kind = method_kind(p, mc.method);
        let sites = r.context(mc.context);
        let over = sites
            .iter()
            .any(|s| matches!(s, lockstep_pointsto::SiteKey::OverBudget));
        let e = by_kind.entry(kind).or_default();
        e.0 += 1;
        if over {
            e.1 += 1;
        }
        if sites.is_empty() {
            e.2 += 1;
        }
        let class = p.class(p.method(mc.method).class).name.to_string();
        *by_class.entry(format!("{kind}: {class}")).or_default() += 1;
        *by_method
            .entry(format!("{kind}: {}", p.method_name(mc.method)))
            .or_default() += 1;
        if let Some(first) = sites.first() {
            let owner = match first.location() {
                Some((m, _)) => method_kind(p, m).to_string(),
                None => format!("{first:?}").chars().take(20).collect(),
            };
            *by_ctx_site
                .entry(format!("{kind} on {owner} receiver"))
                .or_default() += 1;
        }
    }
    println!("  method contexts by kind (total, over budget, empty, within the bound):");
    for (k, (n, o, e)) in &by_kind {
        println!("    {k:14} {n:7} {o:7} {e:7} {:7}", n - o - e);
    }
    println!("  method contexts by kind of the context's first site:");
    for (k, n) in &by_ctx_site {
        println!("    {n:7} {k}");
    }
    let top = |m: BTreeMap<String, usize>, what: &str| {
        let mut v: Vec<(usize, String)> = m.into_iter().map(|(k, n)| (n, k)).collect();
        v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        println!("  top {what}:");
        for (n, k) in v.iter().take(30) {
            println!("    {n:6} {k}");
        }
    };
    top(by_class, "classes");
    top(by_method, "methods");
}

/// The copies of JDK callbacks per calling method past the bounds
/// (`SiteKey::OverBudgetCaller`): method contexts per calling method's
/// package and per callee package, the largest calling methods.
fn print_per_caller_copies(p: &Program, r: &lockstep_pointsto::PointsToResult) {
    use std::collections::BTreeMap;
    let package = |m: lockstep_program::MethodId| {
        let c = &p.class(p.method(m).class).name;
        c.rsplit_once('/').map_or("", |x| x.0).to_string()
    };
    let mut by_caller_pkg: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_callee_pkg: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_caller: BTreeMap<String, usize> = BTreeMap::new();
    let mut callers = std::collections::BTreeSet::new();
    for mc in r.method_contexts() {
        let sites = r.context(mc.context);
        let [lockstep_pointsto::SiteKey::OverBudgetCaller(x)] = sites.as_slice() else {
            continue;
        };
        callers.insert(*x);
        *by_caller_pkg.entry(package(*x)).or_default() += 1;
        *by_callee_pkg.entry(package(mc.method)).or_default() += 1;
        *by_caller.entry(p.method_name(*x).to_string()).or_default() += 1;
    }
    println!("  per-caller copies: {} calling methods", callers.len());
    for (title, map) in [
        ("calling package", by_caller_pkg),
        ("callee package", by_callee_pkg),
        ("calling method", by_caller),
    ] {
        let mut v: Vec<_> = map.into_iter().collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.1));
        for (k, n) in v.iter().take(15) {
            println!("    {title}: {n:6} {k}");
        }
    }
}

/// `PTA_STORES=DESC`: the method contexts whose array stores (and calls
/// given the array as an argument or receiver) may write into an object
/// whose description contains `DESC`, with the size of the stored set
/// and the callers of the context: which merge fills an array.
fn print_stores(p: &Program, r: &lockstep_pointsto::PointsToResult, spec: &str) {
    use lockstep_ir::StmtKind;
    let targets: Vec<lockstep_pointsto::ObjectId> = r
        .objects()
        .filter(|&o| {
            let d = r.describe_object(p, o);
            spec.split("&&").all(|part| d.contains(part))
        })
        .collect();
    println!("  PTA_STORES {spec}: {} objects", targets.len());
    for &t in targets.iter().take(3) {
        println!(
            "    target {} ({} elements)",
            r.describe_object(p, t),
            r.elements(t).len()
        );
    }
    let hits = |set: &lockstep_pointsto::ObjectSet| targets.iter().any(|&t| set.contains(t));
    let mut shown = 0;
    for mc in r.method_contexts() {
        let Some(b) = p.body(mc.method) else { continue };
        for (i, st) in b.stmts.iter().enumerate() {
            let field_filter = std::env::var("PTA_FIELD").ok();
            let (what, arr, val) = match &st.kind {
                StmtKind::FieldStore {
                    object,
                    field,
                    value,
                } if field_filter.as_deref() == Some(field.name.as_ref()) => {
                    ("field store", object.var(), value.var())
                }
                StmtKind::ArrayStore { array, value, .. } => ("store", array.var(), value.var()),
                StmtKind::Invoke { call, .. } if call.method.name.as_ref() == "arraycopy" => (
                    "arraycopy",
                    call.args.get(2).and_then(|a| a.var()),
                    call.args.first().and_then(|a| a.var()),
                ),
                _ => continue,
            };
            let Some(a) = arr else { continue };
            let aset = r.var_in(mc.method, mc.context, a);
            if !hits(&aset) {
                continue;
            }
            let vlen = val
                .map(|v| r.var_in(mc.method, mc.context, v).len())
                .unwrap_or(0);
            if shown < 60 {
                shown += 1;
                let ctx = context_text(r, mc.context);
                println!(
                    "    {what} in {} #{i} ctx [{}]: array set {}, value set {}",
                    p.method_name(mc.method),
                    ctx,
                    aset.len(),
                    vlen
                );
                let callers: Vec<String> = r
                    .context_callers(mc)
                    .take(8)
                    .map(|e| {
                        let cctx: Vec<String> = r
                            .context(e.caller.context)
                            .iter()
                            .map(|s| format!("{s:?}"))
                            .collect();
                        format!(
                            "{} #{} ctx [{}]",
                            p.method_name(e.caller.method),
                            e.site.0,
                            cctx.join(", ")
                        )
                    })
                    .collect();
                for c in callers {
                    println!("      from {}", c.chars().take(300).collect::<String>());
                }
            }
        }
    }
}

/// `PTA_RETURNS=TYPE`: the method contexts of `Object`-returning methods
/// whose returned value may be an object of a type containing `TYPE`,
/// with the size of the returned set: where an untyped value channel
/// picks up objects of unrelated types.
fn print_returns(p: &Program, r: &lockstep_pointsto::PointsToResult, ty: &str) {
    use lockstep_ir::StmtKind;
    let mut shown = 0;
    for mc in r.method_contexts() {
        let md = p.method(mc.method);
        if !md.descriptor.ends_with(")Ljava/lang/Object;") {
            continue;
        }
        let Some(b) = p.body(mc.method) else { continue };
        for (i, st) in b.stmts.iter().enumerate() {
            let StmtKind::Return(Some(v)) = &st.kind else {
                continue;
            };
            let Some(v) = v.var() else { continue };
            let set = r.var_in(mc.method, mc.context, v);
            let hit = set
                .iter()
                .any(|o| r.object(o).is_some_and(|info| info.type_name.contains(ty)));
            if hit && shown < 80 {
                shown += 1;
                let ctx = context_text(r, mc.context);
                println!(
                    "    return in {} #{i} ctx [{}]: {} objects",
                    p.method_name(mc.method),
                    ctx,
                    set.len()
                );
            }
        }
    }
}

/// `PTA_PARAM=METHOD_NAME_PART#INDEX`: per method context of the methods
/// whose name contains the part, the callers and the types of the
/// objects parameter `INDEX` (0 = `this` of instance methods) may hold:
/// which call sites share a context and merge their arguments.
fn print_param(p: &Program, r: &lockstep_pointsto::PointsToResult, spec: &str) {
    let Some((name, index)) = spec.rsplit_once('#') else {
        return;
    };
    let Ok(index) = index.parse::<usize>() else {
        return;
    };
    for mc in r.method_contexts() {
        if !p.method_name(mc.method).contains(name) {
            continue;
        }
        let Some(b) = p.body(mc.method) else { continue };
        let Some(&v) = b.params.get(index) else {
            continue;
        };
        let set = r.var_in(mc.method, mc.context, v);
        let mut types: Vec<String> = set
            .iter()
            .filter_map(|o| r.object(o).map(|i| i.type_name.to_string()))
            .collect();
        types.sort();
        types.dedup();
        let ctx = context_text(r, mc.context);
        println!(
            "    {} ctx [{}]: param {index} {} objects of {} types: {}",
            p.method_name(mc.method),
            ctx,
            set.len(),
            types.len(),
            types.iter().take(12).cloned().collect::<Vec<_>>().join(" ")
        );
        let callers: Vec<String> = r
            .context_callers(mc)
            .map(|e| p.method_name(e.caller.method))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .take(10)
            .collect();
        println!("      callers: {}", callers.join(", "));
    }
}

/// `PTA_EXTERNAL=1`: how many method contexts have an object made
/// outside the analysed code (`SiteKey::External`, `SiteKey::Entry`) as
/// their receiver, against all contexts: what the open-program harness
/// spends of the context bounds.
fn print_external_contexts(p: &Program, r: &lockstep_pointsto::PointsToResult) {
    use lockstep_pointsto::SiteKey;
    let (mut all, mut external, mut entry, mut over) = (0usize, 0usize, 0usize, 0usize);
    let mut per_type: std::collections::BTreeMap<String, usize> = Default::default();
    for mc in r.method_contexts() {
        all += 1;
        match r.context(mc.context).first() {
            Some(SiteKey::External { ty, .. }) => {
                external += 1;
                *per_type.entry(ty.to_string()).or_default() += 1;
            }
            Some(SiteKey::Entry(_)) => entry += 1,
            Some(SiteKey::OverBudget) => over += 1,
            _ => {}
        }
    }
    let _ = p;
    println!(
        "  method contexts {all}: receiver made outside (parameter objects) {external}, harness receivers {entry}, over budget {over}"
    );
    let mut v: Vec<(usize, String)> = per_type.into_iter().map(|(t, n)| (n, t)).collect();
    v.sort_by(|a, b| b.cmp(a));
    for (n, t) in v.iter().take(10) {
        println!("    {n:6} {t}");
    }
}

/// A method context's sites, comma-separated, for the diagnostics.
fn context_text(
    r: &lockstep_pointsto::PointsToResult,
    ctx: lockstep_pointsto::ContextId,
) -> String {
    let sites: Vec<String> = r.context(ctx).iter().map(|s| format!("{s:?}")).collect();
    sites.join(", ")
}
