//! IR snapshot tests: javac-compiled fixtures, lowered, validated and
//! dumped. A change in a snapshot is a change in the IR other crates see:
//! review it (`INSTA_UPDATE=always cargo test -p lockstep_ir` rewrites them).

mod common;

use common::{class, compile_fixture, lower};
use lockstep_ir::dump;

fn snap(fixture: &str, class_name: &str, method: &str) -> String {
    let classes = compile_fixture(fixture);
    dump(&lower(class(&classes, class_name), method))
}

macro_rules! snapshot {
    ($test:ident, $fixture:expr, $class:expr, $method:expr) => {
        #[test]
        fn $test() {
            insta::assert_snapshot!(stringify!($test), snap($fixture, $class, $method));
        }
    };
}

// Monitors.
snapshot!(sync_nested, "Sync.java", "Sync", "nested");
snapshot!(sync_try_finally, "Sync.java", "Sync", "tryFinally");
snapshot!(sync_return_inside, "Sync.java", "Sync", "returnInside");
snapshot!(sync_throw_inside, "Sync.java", "Sync", "throwInside");
snapshot!(sync_method_with_block, "Sync.java", "Sync", "syncMethod");
snapshot!(sync_static_method, "Sync.java", "Sync", "staticSync");
snapshot!(sync_loop_break, "Sync.java", "Sync", "loopInside");

// Control flow.
snapshot!(flow_for_loop, "Flow.java", "Flow", "loop");
snapshot!(
    flow_while_param_reassigned,
    "Flow.java",
    "Flow",
    "whileLoop"
);
snapshot!(flow_tableswitch, "Flow.java", "Flow", "tableSwitch");
snapshot!(flow_lookupswitch, "Flow.java", "Flow", "lookupSwitch");
snapshot!(flow_string_switch, "Flow.java", "Flow", "stringSwitch");
snapshot!(
    flow_try_with_resources,
    "Flow.java",
    "Flow",
    "tryWithResources"
);
snapshot!(flow_slot_reuse, "Flow.java", "Flow", "slotReuse");
snapshot!(flow_multi_catch, "Flow.java", "Flow", "tryCatch");

// Lambdas and method references.
snapshot!(lambda_capture_site, "Lambdas.java", "Lambdas", "capture");
snapshot!(
    lambda_capture_body,
    "Lambdas.java",
    "Lambdas",
    "lambda$capture$0"
);
snapshot!(lambda_method_ref, "Lambdas.java", "Lambdas", "methodRef");
snapshot!(lambda_ctor_ref, "Lambdas.java", "Lambdas", "ctorRef");

// Constructors and static initializers.
snapshot!(ctor_init_chain, "Ctors.java", "Ctors", "<init>");
snapshot!(ctor_clinit, "Ctors.java", "Ctors", "<clinit>");
snapshot!(ctor_multianewarray, "Ctors.java", "Ctors", "grid");

// Stack shapes.
snapshot!(
    stack_array_compound_long,
    "Stack.java",
    "Stack",
    "arrayCompound"
);
snapshot!(
    stack_chained_assign_long,
    "Stack.java",
    "Stack",
    "chainedAssign"
);
snapshot!(
    stack_field_post_inc_long,
    "Stack.java",
    "Stack",
    "fieldPostInc"
);
snapshot!(stack_post_inc, "Stack.java", "Stack", "postInc");
snapshot!(
    stack_field_post_inc_dup_x1,
    "Stack.java",
    "Stack",
    "fieldPostIncInt"
);
snapshot!(
    stack_array_post_inc_dup_x2,
    "Stack.java",
    "Stack",
    "arrayPostInc"
);
snapshot!(
    stack_array_post_inc_long_dup2_x2,
    "Stack.java",
    "Stack",
    "arrayPostIncLong"
);
snapshot!(stack_ternary_merge, "Stack.java", "Stack", "ternary");
snapshot!(stack_doubles, "Stack.java", "Stack", "doubles");
