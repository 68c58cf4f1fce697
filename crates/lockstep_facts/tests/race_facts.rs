//! The race facts on small compiled programs, for what the speed work
//! (issue 20) must keep: one finding per racing write however many
//! objects' buckets repeat it (each object is still named), the same
//! facts on every run, and a time for every step of the computation.

use lockstep_facts::{RaceFacts, Settings, SharedFacts};
use lockstep_program::{entry_points, Program};
use lockstep_testkit_program::{compile_sources, program_of};

/// Three boxes from three allocation sites, all written by `main` and by
/// a thread through the one statement of `fill`, whose `b` may be any of
/// them in one context: three buckets of one field with the same
/// accesses (the pair search judges the first and reuses it for the
/// other two), and one statement racing on each box.
const THREE_BOXES: &str = r#"
public class Main {
    static class Box {
        int v;
    }
    static void fill(Box[] boxes, int x) {
        for (Box b : boxes) {
            b.v = x;
        }
    }
    public static void main(String[] args) throws Exception {
        Box[] boxes = { new Box(), new Box(), new Box() };
        Thread t = new Thread(() -> fill(boxes, 1));
        t.start();
        fill(boxes, 2);
        System.out.println(boxes[0].v + boxes[1].v + boxes[2].v);
    }
}
"#;

fn three_boxes() -> Program {
    program_of(&compile_sources(&[("Main.java", THREE_BOXES)]))
}

/// Runs the race facts of a closed program and hands them to `f`.
fn with_races<T>(program: &Program, f: impl FnOnce(&RaceFacts) -> T) -> T {
    let entries = entry_points(program, false);
    let facts = SharedFacts::new(program, &entries, Settings::default());
    f(facts.races())
}

/// The races of `Main$Box.v`: (method name, statement, object count).
fn box_races(program: &Program, races: &RaceFacts) -> Vec<(String, u32, usize)> {
    races
        .races
        .iter()
        .filter(|r| lockstep_facts::target_name(&r.target).as_deref() == Some("Main$Box.v"))
        .map(|r| {
            let name = program.method(r.first.method).name.to_string();
            (name, r.first.stmt.0, r.objects.len())
        })
        .collect()
}

#[test]
fn one_finding_names_every_object_of_repeated_buckets() {
    let program = three_boxes();
    let found = with_races(&program, |races| {
        // Three boxes: three buckets of `v`, each its own object.
        let buckets = races
            .buckets
            .keys()
            .filter(|(t, o)| {
                o.is_some() && lockstep_facts::target_name(t).as_deref() == Some("Main$Box.v")
            })
            .count();
        assert_eq!(buckets, 3, "{:?}", races.buckets.keys().collect::<Vec<_>>());
        box_races(&program, races)
    });
    // The write in `fill` races with itself (main and the thread), once,
    // with the three boxes as its objects.
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "fill");
    assert_eq!(found[0].2, 3, "{found:?}");
}

#[test]
fn the_same_program_gives_the_same_facts() {
    let describe = |races: &RaceFacts| {
        let races_text = format!("{:?}", races.races);
        let buckets_text = format!("{:?}", races.buckets);
        let mut racy: Vec<_> = races.racy.iter().copied().collect();
        racy.sort();
        (races_text, buckets_text, racy, races.reach.clone())
    };
    let first = with_races(&three_boxes(), describe);
    let second = with_races(&three_boxes(), describe);
    assert!(!first.2.is_empty(), "the fixture has racing accesses");
    assert_eq!(first, second);
}

#[test]
fn every_step_is_timed_in_order() {
    let program = three_boxes();
    let steps: Vec<&str> = with_races(&program, |races| {
        races.timings.iter().map(|(name, _)| *name).collect()
    });
    assert_eq!(
        steps,
        [
            "threads",
            "entry locks",
            "reach",
            "escape",
            "ownership",
            "ordering",
            "once-gates",
            "accesses/buckets",
            "pairs"
        ]
    );
}
