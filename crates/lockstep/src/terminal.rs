//! Whether the text output gets colours: `--color always|never`, or for
//! `auto` a terminal on standard output that is not `TERM=dumb`, and no
//! `NO_COLOR` (<https://no-color.org>).

use std::io::IsTerminal;

use crate::args::ColorChoice;

/// The decision for this process; `to_stdout` is false with `-o FILE`.
pub fn color(choice: ColorChoice, to_stdout: bool) -> bool {
    color_with(
        choice,
        to_stdout && std::io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR").is_some(),
        std::env::var_os("TERM").is_some_and(|t| t == "dumb"),
    )
}

/// [`color`] with the environment passed in.
fn color_with(choice: ColorChoice, terminal: bool, no_color: bool, dumb: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && !no_color && !dumb,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumb_terminals_and_no_color_get_none() {
        assert!(color_with(ColorChoice::Auto, true, false, false));
        assert!(!color_with(ColorChoice::Auto, true, false, true));
        assert!(!color_with(ColorChoice::Auto, true, true, false));
        assert!(!color_with(ColorChoice::Auto, false, false, false));
        assert!(color_with(ColorChoice::Always, false, true, true));
        assert!(!color_with(ColorChoice::Never, true, false, false));
    }
}
