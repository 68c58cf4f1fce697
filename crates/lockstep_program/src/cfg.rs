//! Loops in one body's control-flow graph: which blocks lie on a cycle.
//!
//! A block is "in a loop" when it belongs to a strongly connected component
//! of the normal-successor graph with more than one block, or has an edge
//! to itself. Exceptional edges are left out on purpose: javac's handler
//! for `synchronized` blocks covers its own first instructions, which would
//! make every such handler a one-block "loop", while a real retry loop
//! around a `try` has a normal back edge anyway.

use lockstep_ir::Body;

/// For each block of `body`, whether it lies on a cycle (Tarjan's SCC
/// algorithm, iterative so that huge methods cannot overflow the stack).
pub fn blocks_in_loops(body: &Body) -> Vec<bool> {
    let n = body.blocks.len();
    let succs = |b: usize| -> &[lockstep_ir::BlockId] {
        body.blocks
            .get(b)
            .map(|blk| blk.succs.as_slice())
            .unwrap_or(&[])
    };
    const UNVISITED: u32 = u32::MAX;
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut in_loop = vec![false; n];
    let mut next = 0u32;
    // (block, position in its successor list)
    let mut call: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNVISITED {
            continue;
        }
        call.push((root, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            if let Some(w) = succs(v).get(*pos).map(|b| b.index()) {
                *pos += 1;
                if w >= n {
                    continue;
                }
                if w == v {
                    in_loop[v] = true;
                }
                if index[w] == UNVISITED {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    for w in component {
                        in_loop[w] = true;
                    }
                }
            }
        }
    }
    in_loop
}
