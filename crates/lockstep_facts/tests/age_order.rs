//! Creation order (`lockstep_facts::age_order`): an element read from a
//! collection field descends from the field's owner only when every
//! insertion into every such collection adds an object younger than its
//! owner and the collection goes nowhere else (commons-dbcp's
//! `AbandonedTrace`, samples #42 and #43 of `docs/deadlock-sample.md`).

use lockstep_facts::age_order::AgeOrder;
use lockstep_ir::{AccessPath, StmtKind};
use lockstep_program::Program;
use lockstep_testkit_program::{compile_sources, program_of};

const TREES: &str = r#"
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

public class Main {
    // Children join in their own constructor, or through the parent the
    // constructor stored: ordered.
    static class Tree {
        private final List<Tree> kids = new ArrayList<>();
        private Tree up;

        Tree(Tree parent) {
            up = parent;
            parent.add(this);
        }

        Tree() {
        }

        void rejoin() {
            up.add(this);
        }

        protected void add(Tree t) {
            synchronized (kids) {
                kids.add(t);
            }
        }

        void walk() {
            synchronized (kids) {
                Iterator<Tree> it = kids.iterator();
                while (it.hasNext()) {
                    it.next().walk();
                }
            }
        }
    }

    // Leaves are made by the owner itself: ordered.
    static class Bag {
        private final List<Bag> items = new ArrayList<>();

        void grow() {
            items.add(new Bag());
        }

        void walk() {
            for (int i = 0; i < items.size(); i++) {
                items.get(i).walk();
            }
        }
    }

    // Any caller may add any graph: not ordered.
    static class Graph {
        private final List<Graph> edges = new ArrayList<>();

        public void link(Graph g) {
            edges.add(g);
        }

        void walk() {
            for (Graph g : edges) {
                g.walk();
            }
        }
    }

    // The list itself is handed out: not ordered.
    static class Leaky {
        private final List<Leaky> parts = new ArrayList<>();

        Leaky(Leaky parent) {
            parent.parts.add(this);
        }

        List<Leaky> parts() {
            return parts;
        }

        void walk() {
            for (Leaky l : parts) {
                l.walk();
            }
        }
    }

    // `owner` is set again after construction: `this` may join an
    // object younger than itself.
    static class Moving {
        private final List<Moving> members = new ArrayList<>();
        private Moving owner;

        Moving(Moving o) {
            owner = o;
        }

        void moveTo(Moving o) {
            owner = o;
        }

        void join() {
            owner.members.add(this);
        }

        void walk() {
            for (Moving m : members) {
                m.walk();
            }
        }
    }

    public static void main(String[] args) {
        Tree root = new Tree();
        Tree child = new Tree(root);
        child.rejoin();
        root.walk();
        Bag bag = new Bag();
        bag.grow();
        bag.walk();
        Graph a = new Graph();
        a.link(a);
        a.walk();
        Leaky l = new Leaky(null);
        l.parts().add(l);
        l.walk();
        Moving m = new Moving(null);
        m.moveTo(new Moving(m));
        m.join();
        m.walk();
    }
}
"#;

fn trees() -> Program {
    program_of(&compile_sources(&[("Main.java", TREES)]))
}

/// What `descends` says about the receiver of the call to `walk` inside
/// `Main$<class>.walk`.
fn walk_receiver(program: &Program, class: &str) -> Option<AccessPath> {
    let internal = format!("Main${class}");
    let mut age = AgeOrder::default();
    for c in program.application_classes() {
        let info = program.class(c);
        if *info.name != *internal {
            continue;
        }
        for &m in &info.methods {
            if &*program.method(m).name != "walk" {
                continue;
            }
            let body = program.body(m).expect("walk has a body");
            for stmt in &body.stmts {
                if let StmtKind::Invoke { call, .. } = &stmt.kind {
                    if &*call.method.name == "walk" {
                        let r = call
                            .receiver
                            .as_ref()
                            .and_then(|r| r.var())
                            .expect("receiver");
                        return age.descends(program, &body, r);
                    }
                }
            }
        }
    }
    panic!("no call of walk in {internal}.walk");
}

#[test]
fn children_added_by_their_constructors_are_younger() {
    let program = trees();
    assert_eq!(walk_receiver(&program, "Tree"), Some(AccessPath::This));
}

#[test]
fn objects_the_owner_makes_are_younger() {
    let program = trees();
    assert_eq!(walk_receiver(&program, "Bag"), Some(AccessPath::This));
}

#[test]
fn a_public_insertion_of_any_object_is_not_ordered() {
    let program = trees();
    assert_eq!(walk_receiver(&program, "Graph"), None);
}

#[test]
fn a_collection_handed_out_is_not_ordered() {
    let program = trees();
    assert_eq!(walk_receiver(&program, "Leaky"), None);
}

#[test]
fn a_parent_field_set_after_construction_is_not_ordered() {
    let program = trees();
    assert_eq!(walk_receiver(&program, "Moving"), None);
}
