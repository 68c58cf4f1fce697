//! CHA vs RTA, lambdas and method references, class initialisation, entry points.

mod common;
use common::*;
use lockstep_ir::StmtId;
use lockstep_program::*;

const SRC: &str = r#"
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Supplier;

public class Main {
    interface Shape { double area(); }
    static class Circle implements Shape { public double area() { return 3; } }
    static class Square implements Shape { public double area() { return 4; } }
    static class Config { static final Object LOCK = new Object(); static int hits; }
    static double total(Shape s) { return s.area(); }
    void work() {}
    public static void main(String[] args) throws Exception {
        total(new Circle());
        Runnable r = () -> System.out.println("lambda");
        r.run(); // MARK r.run
        Main m = new Main();
        Runnable w = m::work;
        w.run(); // MARK w.run
        Callable<Integer> c = () -> 42;
        c.call(); // MARK c.call
        Function<String, Integer> f = Integer::parseInt;
        f.apply("1"); // MARK f.apply
        Supplier<Main> s = Main::new;
        s.get(); // MARK s.get
        Config.hits++;
    }
}
"#;

struct Fixture {
    p: Program,
    rta: CallGraph,
    cha: CallGraph,
}

fn fixture() -> Fixture {
    let p = program(&[("Main.java", SRC)]);
    let e = entry_points(&p, false);
    let rta = rta(&p, &e);
    let cha = cha(&p, &e);
    Fixture { p, rta, cha }
}

/// Names of the callees at the call on the line marked `marker` in `caller`.
fn callees_on_line(p: &Program, g: &CallGraph, caller: MethodId, line: u32) -> Vec<String> {
    let body = p.body(caller).unwrap();
    let mut v: Vec<String> = g
        .callees(caller)
        .iter()
        .filter(|e| body.stmts[e.site.index()].line == Some(line))
        .map(|e| name(p, e.callee))
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn rta_is_a_subset_of_cha_and_skips_uninstantiated_classes() {
    let f = fixture();
    let p = &f.p;
    let cha_edges: std::collections::HashSet<_> = f.cha.edges.iter().copied().collect();
    for e in &f.rta.edges {
        assert!(
            cha_edges.contains(e),
            "RTA edge not in CHA: {} -> {}",
            name(p, e.caller),
            name(p, e.callee)
        );
    }
    for m in &f.rta.reachable {
        assert!(f.cha.is_reachable(*m), "{}", name(p, *m));
    }
    assert!(f.rta.edges.len() < f.cha.edges.len());
    let total = method(p, "Main", "total");
    let rta_targets: Vec<String> = f
        .rta
        .callees(total)
        .iter()
        .map(|e| name(p, e.callee))
        .collect();
    assert_eq!(rta_targets, vec!["Main$Circle.area"]);
    let mut cha_targets: Vec<String> = f
        .cha
        .callees(total)
        .iter()
        .map(|e| name(p, e.callee))
        .collect();
    cha_targets.sort();
    assert_eq!(cha_targets, vec!["Main$Circle.area", "Main$Square.area"]);
    assert!(!f.rta.is_reachable(method(p, "Main$Square", "area")));
    let square = p.class_by_name("Main$Square").unwrap();
    assert!(!f.rta.is_instantiated(square));
    assert!(f.cha.is_instantiated(square));
    // Sorted, unique edges; callers index agrees with callees.
    assert!(f.rta.edges.windows(2).all(|w| w[0] < w[1]));
    let circle_area = method(p, "Main$Circle", "area");
    assert!(f.rta.callers(circle_area).any(|e| e.caller == total));
}

#[test]
fn lambdas_and_method_references_dispatch_to_their_bodies() {
    let f = fixture();
    let p = &f.p;
    let main = method(p, "Main", "main");
    let on = |marker: &str| callees_on_line(p, &f.rta, main, line_of(SRC, marker));
    // RTA is type-based: every live Runnable answers `r.run()`, the
    // lambda and the method reference alike; the Callable lambda does not.
    let runs = on("MARK r.run");
    assert!(runs.contains(&"Main.lambda$main$0".to_string()), "{runs:?}");
    assert!(runs.contains(&"Main.work".to_string()), "{runs:?}");
    assert!(
        !runs.contains(&"Main.lambda$main$1".to_string()),
        "{runs:?}"
    );
    assert_eq!(on("MARK w.run"), runs);
    let calls = on("MARK c.call");
    assert!(
        calls.contains(&"Main.lambda$main$1".to_string()),
        "{calls:?}"
    );
    assert!(
        !calls.contains(&"Main.lambda$main$0".to_string()),
        "{calls:?}"
    );
    assert!(on("MARK f.apply").contains(&"java/lang/Integer.parseInt".to_string()));
    assert!(on("MARK s.get").contains(&"Main.<init>".to_string()));
    // The edge from r.run() is an ordinary interface call edge.
    let lambda0 = method(p, "Main", "lambda$main$0");
    let e = f.rta.callers(lambda0).find(|e| e.caller == main).unwrap();
    assert_eq!(e.kind, EdgeKind::Interface);
    // Lambda sites of main, in order, with their interfaces and implementations.
    let sites: Vec<(String, String, String)> = f
        .rta
        .lambda_sites
        .iter()
        .filter(|l| l.site.0 == main)
        .map(|l| {
            (
                l.shape.interface.to_string(),
                l.shape.sam_name.to_string(),
                l.implementation.map(|m| name(p, m)).unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        sites,
        vec![
            (
                "java/lang/Runnable".into(),
                "run".into(),
                "Main.lambda$main$0".into()
            ),
            (
                "java/lang/Runnable".into(),
                "run".into(),
                "Main.work".into()
            ),
            (
                "java/util/concurrent/Callable".into(),
                "call".into(),
                "Main.lambda$main$1".into()
            ),
            (
                "java/util/function/Function".into(),
                "apply".into(),
                "java/lang/Integer.parseInt".into()
            ),
            (
                "java/util/function/Supplier".into(),
                "get".into(),
                "Main.<init>".into()
            ),
        ]
    );
    let w = f
        .rta
        .lambda_sites
        .iter()
        .find(|l| l.site.0 == main && &*l.shape.sam_name == "run" && l.shape.captured == 1)
        .unwrap();
    assert_eq!(w.line, Some(line_of(SRC, "m::work")));
    assert!(f.rta.lambda_site(w.site.0, w.site.1).is_some());
}

#[test]
fn class_initialisers_and_jdk_callbacks() {
    let f = fixture();
    let p = &f.p;
    let clinit = method(p, "Main$Config", "<clinit>");
    assert!(f.rta.class_inits.contains(&clinit));
    assert!(f.rta.is_reachable(clinit));
    // println reaches JDK code; RTA follows it (e.g. PrintStream.println).
    assert!(f
        .rta
        .reachable
        .iter()
        .any(|&m| name(p, m) == "java/io/PrintStream.println"));
    let stats = Stats::collect(p, Some(&f.cha), Some(&f.rta));
    let text = stats.to_string();
    assert!(
        text.contains("Rta:") && text.contains("Cha:") && text.contains("main methods"),
        "{text}"
    );
}

#[test]
fn rta_is_deterministic() {
    let a = fixture();
    let b = fixture();
    let names = |f: &Fixture| -> Vec<(String, u32, String)> {
        f.rta
            .edges
            .iter()
            .filter(|e| f.p.is_application(f.p.method(e.caller).class))
            .map(|e| (name(&f.p, e.caller), e.site.0, name(&f.p, e.callee)))
            .collect()
    };
    assert_eq!(names(&a), names(&b));
    assert_eq!(a.rta.reachable.len(), b.rta.reachable.len());
    assert_eq!(a.rta.edges.len(), b.rta.edges.len());
}

const LIB: &str = r#"
package lib;
public class Api {
    static { System.getProperty("x"); }
    public Api() {}
    public void go() { new Thread(this::step).start(); }
    void step() {}
    protected static void util() {}
    private void hidden() {}
    public abstract static class Shape { public abstract double area(); public String show() { return "" + area(); } }
}
class Internal { public void x() {} }
"#;

#[test]
fn open_program_entry_points() {
    let p = program(&[("lib/Api.java", LIB)]);
    let closed = entry_points(&p, false);
    assert_eq!(
        closed.mode,
        EntryMode::OpenNoMain,
        "no main: falls back to the open harness"
    );
    let names: Vec<String> = closed.methods.iter().map(|&m| name(&p, m)).collect();
    for expected in [
        "lib/Api.<init>",
        "lib/Api.go",
        "lib/Api.util",
        "lib/Api.<clinit>",
        "lib/Api$Shape.show",
        // `Api` starts a thread (concurrent intent): its non-private
        // methods are entries whatever their visibility (issue 15).
        "lib/Api.step",
    ] {
        assert!(
            names.contains(&expected.to_string()),
            "{expected} missing from {names:?}"
        );
    }
    for absent in ["lib/Api.hidden", "lib/Internal.x", "lib/Api$Shape.area"] {
        assert!(
            !names.contains(&absent.to_string()),
            "{absent} in {names:?}"
        );
    }
    let open = entry_points(&p, true);
    assert_eq!(open.mode, EntryMode::Open);
    assert_eq!(open.methods, closed.methods);
    let g = rta(&p, &open);
    // Instance entries make their class live, so calls on `this` resolve.
    assert!(g.is_instantiated(p.class_by_name("lib/Api").unwrap()));
    assert!(g.is_reachable(method(&p, "lib/Api", "step")));
}

const BOUNDARY_SRC: &str = r#"
import java.text.FieldPosition;
import java.text.Format;
import java.text.ParsePosition;
import java.util.regex.Pattern;

public class Bound {
    static class Shout extends Format {
        public StringBuffer format(Object o, StringBuffer b, FieldPosition p) { return b; }
        public Object parseObject(String s, ParsePosition p) { return null; }
    }
    public static void main(String[] args) {
        Pattern.compile("a+").matcher("aaa").matches();
        new Shout().format("x");
    }
}
"#;

/// The JDK boundary (`lockstep_models::boundary`): calls into summarised
/// JDK classes keep their edges, their bodies add no edge except the
/// callbacks on their parameters (an application override called through
/// `this` by `Format.format(Object)`), and the internals behind them (the
/// node classes of a regular expression) are not reached.
#[test]
fn jdk_boundary_keeps_call_edges_and_callbacks_only() {
    let p = program(&[("Bound.java", BOUNDARY_SRC)]);
    let e = entry_points(&p, false);
    let g = rta(&p, &e);
    let main = method(&p, "Bound", "main");
    let from_main: Vec<String> = g.callees(main).iter().map(|e| name(&p, e.callee)).collect();
    assert!(
        from_main
            .iter()
            .any(|n| n == "java/util/regex/Pattern.compile"),
        "{from_main:?}"
    );
    assert!(
        from_main.iter().any(|n| n == "java/text/Format.format"),
        "{from_main:?}"
    );
    let shout = method(
        &p,
        "Bound$Shout",
        "format(Ljava/lang/Object;Ljava/lang/StringBuffer;Ljava/text/FieldPosition;)Ljava/lang/StringBuffer;",
    );
    let callers: Vec<String> = g.callers(shout).map(|e| name(&p, e.caller)).collect();
    assert_eq!(
        callers,
        ["java/text/Format.format"],
        "the callback through `this`"
    );
    for &m in &g.reachable {
        let class = &p.class(p.method(m).class).name;
        assert!(
            !class.starts_with("java/util/regex/Pattern$"),
            "regex internals reached: {}",
            name(&p, m)
        );
        if p.is_summarized(m) {
            assert_only_callbacks_leave(&p, &g, m);
        }
    }
}

/// Every call edge out of the summarised method `m` is one of its callbacks.
fn assert_only_callbacks_leave(p: &Program, g: &CallGraph, m: MethodId) {
    let callbacks: Vec<StmtId> = p
        .body(m)
        .as_deref()
        .map(|b| callback_calls(b).map(|(s, _)| s).collect())
        .unwrap_or_default();
    for edge in g.callees(m) {
        assert!(
            callbacks.contains(&edge.site),
            "{} -> {} is not a callback",
            name(p, m),
            name(p, edge.callee)
        );
    }
}

const DESKTOP_SRC: &str = r#"
import java.awt.Graphics;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.math.BigInteger;
import javax.swing.JPanel;
import javax.swing.SwingUtilities;

public class Desk {
    static int painted;
    static class Canvas extends JPanel {
        protected void paintComponent(Graphics g) { painted++; }
    }
    static class Repaint implements Runnable {
        public void run() { painted = 0; }
    }
    public static void main(String[] args) {
        BufferedImage img = new BufferedImage(4, 4, BufferedImage.TYPE_INT_RGB);
        new Canvas().paint(img.createGraphics());
        System.out.println(new Rectangle2D.Double(0, 0, 1, 1));
        System.out.println(BigInteger.valueOf(3).pow(5));
        SwingUtilities.invokeLater(new Repaint());
    }
}
"#;

/// The desktop part of the JDK boundary: AWT peers and toolkits, 2D
/// pipelines, fonts, images, geometry and numbers are summarised, while
/// the public Swing classes stay analysed, so an application's
/// `paintComponent` is still called by `JComponent.paint` and a task
/// handed to `invokeLater` still runs (a thread-start model).
#[test]
fn jdk_boundary_summarises_desktop_internals_and_keeps_swing_callbacks() {
    let p = program(&[("Desk.java", DESKTOP_SRC)]);
    let e = entry_points(&p, false);
    let g = rta(&p, &e);
    let paint = method(&p, "Desk$Canvas", "paintComponent");
    assert!(g.is_reachable(paint), "paintComponent not reached");
    let run = method(&p, "Desk$Repaint", "run");
    let launchers: Vec<String> = g
        .callers(run)
        .filter(|e| e.kind == EdgeKind::TaskLaunch)
        .map(|e| name(&p, e.caller))
        .collect();
    assert_eq!(launchers, ["Desk.main"], "the invokeLater task");
    // `BufferedImage.createGraphics` is summarised; its abstract result
    // stands for the JDK's one implementation, so calls on it resolve.
    let sun_graphics = p.class_by_name("sun/java2d/SunGraphics2D").unwrap();
    assert!(
        g.is_instantiated(sun_graphics),
        "no Graphics2D implementation"
    );
    let mut summarised = 0;
    for &m in &g.reachable {
        let class = &p.class(p.method(m).class).name;
        let internal = [
            "sun/awt/",
            "sun/java2d/",
            "sun/font/",
            "java/awt/image/",
            "java/math/",
        ]
        .iter()
        .any(|pkg| class.starts_with(pkg));
        if !internal {
            continue;
        }
        assert!(p.is_summarized(m), "{} analysed", name(&p, m));
        summarised += 1;
        assert_only_callbacks_leave(&p, &g, m);
    }
    assert!(summarised > 0, "no call into the summarised packages");
    assert!(
        !g.reachable
            .iter()
            .any(|&m| p.class(p.method(m).class).name.starts_with("sun/awt/X11/")),
        "the X11 toolkit is reached"
    );
}
