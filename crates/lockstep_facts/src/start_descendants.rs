//! Ordering by `Thread.start` through the threads a thread starts.
//!
//! What a method does before it starts thread `T` happens before
//! everything `T` does, and so before every thread that only `T` (or a
//! thread only `T` started, and so on) starts: h2's `Server.start` starts
//! the TCP server's socket before the listener thread, which starts one
//! thread per connection. Those are `T`'s *descendants*: start roots
//! whose starting code no root reaches but `T` and its descendants.
//!
//! Only the "before the start" half carries over. A wait for `T`'s end
//! (`join()`) does not wait for the threads `T` started.

/// The descendants of root `root` (sorted): start roots each of whose
/// starting nodes is reached only by `root`, by descendants, or by the
/// start root itself (a thread that restarts itself), and by at least one
/// of `root` and its descendants.
///
/// `starters[d]` lists the roots reaching the node that makes start root
/// `d` (empty for roots that are not starts, or whose start is not
/// reached); `reach` is not consulted beyond that.
pub fn descendants(root: u32, starters: &[Vec<u32>]) -> Vec<u32> {
    let mut inside = vec![false; starters.len()];
    if let Some(r) = inside.get_mut(root as usize) {
        *r = true;
    } else {
        return Vec::new();
    }
    // A least fixpoint: add a start once everything that reaches its
    // starting node is already inside; each pass adds at least one or ends.
    loop {
        let mut added = false;
        for (d, by) in starters.iter().enumerate() {
            if inside[d] || by.is_empty() {
                continue;
            }
            let all_inside = by
                .iter()
                .all(|&s| s as usize == d || inside.get(s as usize).copied().unwrap_or(false));
            let some_parent = by.iter().any(|&s| s as usize != d);
            if all_inside && some_parent {
                inside[d] = true;
                added = true;
            }
        }
        if !added {
            break;
        }
    }
    inside
        .iter()
        .enumerate()
        .filter(|&(d, &i)| i && d != root as usize)
        .map(|(d, _)| d as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_reached_only_from_the_root_descends_from_it() {
        // 0: main; 1: listener started by main; 2: connection threads
        // started by the listener.
        let starters = vec![vec![], vec![0], vec![1]];
        assert_eq!(descendants(1, &starters), vec![2]);
        assert_eq!(descendants(0, &starters), vec![1, 2]);
        assert!(descendants(2, &starters).is_empty());
    }

    #[test]
    fn a_start_another_root_also_reaches_is_no_descendant() {
        // 2 is started from code both 1 and 3 run.
        let starters = vec![vec![], vec![0], vec![1, 3], vec![0]];
        assert!(descendants(1, &starters).is_empty());
    }

    #[test]
    fn a_thread_that_restarts_itself_still_descends() {
        let starters = vec![vec![], vec![0], vec![1, 2]];
        assert_eq!(descendants(1, &starters), vec![2]);
    }

    #[test]
    fn chains_are_followed() {
        let starters = vec![vec![], vec![0], vec![1], vec![2, 1]];
        assert_eq!(descendants(1, &starters), vec![2, 3]);
    }

    #[test]
    fn an_unknown_root_has_none() {
        assert!(descendants(7, &[vec![], vec![0]]).is_empty());
    }
}
