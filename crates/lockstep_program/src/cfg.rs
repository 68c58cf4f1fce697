//! Loops in one body's control-flow graph: which blocks lie on a cycle.
//!
//! A block is "in a loop" when it belongs to a strongly connected component
//! of the normal-successor graph with more than one block, or has an edge
//! to itself. Exceptional edges are left out on purpose: javac's handler
//! for `synchronized` blocks covers its own first instructions, which would
//! make every such handler a one-block "loop", while a real retry loop
//! around a `try` has a normal back edge anyway.

use lockstep_ir::Body;

/// For each block of `body`, whether it lies on a cycle of normal edges.
pub fn blocks_in_loops(body: &Body) -> Vec<bool> {
    let succs: Vec<Vec<usize>> = body
        .blocks
        .iter()
        .map(|blk| blk.succs.iter().map(|b| b.index()).collect())
        .collect();
    nodes_on_cycles(&succs)
}

/// For each node of a graph given by successor lists, whether it lies on a
/// cycle: in a strongly connected component of more than one node, or with
/// an edge to itself. Tarjan's algorithm, iterative so that huge graphs
/// cannot overflow the stack; successors out of range are ignored.
pub(crate) fn nodes_on_cycles(succs: &[Vec<usize>]) -> Vec<bool> {
    let n = succs.len();
    const UNVISITED: usize = usize::MAX;
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut on_cycle = vec![false; n];
    let mut next = 0usize;
    // (node, position in its successor list)
    let mut call: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNVISITED {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        call.push((root, 0));
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            if let Some(&w) = succs.get(v).and_then(|s| s.get(*pos)) {
                *pos += 1;
                if w >= n {
                    continue;
                }
                if w == v {
                    on_cycle[v] = true;
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
                        on_cycle[w] = true;
                    }
                }
            }
        }
    }
    on_cycle
}
