//! `lockstep.toml`: the project's settings, found from the current
//! directory upward, so that `lockstep check` in a repository needs no
//! flags. Flags given on the command line override it; lists given on the
//! command line replace the file's. Paths in the file are relative to the
//! file's directory. An unknown key is an error naming it (serde's
//! `deny_unknown_fields`), so a typo never silently does nothing.
//!
//! The format is documented in `docs/configuration.md`.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use serde::Deserialize;

use crate::args::{CheckArgs, Format};
use crate::suppress::Pattern;

/// The file name looked for.
pub const FILE_NAME: &str = "lockstep.toml";

/// What the file may hold.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    #[serde(default)]
    inputs: Vec<PathBuf>,
    #[serde(default)]
    classpath: Vec<PathBuf>,
    #[serde(default)]
    module_path: Vec<PathBuf>,
    jdk: Option<PathBuf>,
    no_jdk: Option<bool>,
    open: Option<bool>,
    /// `--fail-on-problems`.
    fail_on_problems: Option<bool>,
    /// `--min-confidence`: `high`, `medium` or `low`.
    min_confidence: Option<String>,
    /// `false`: `--no-container-models` (points-to analyses the JDK
    /// containers' bytecode instead of their content models).
    container_models: Option<bool>,
    baseline: Option<PathBuf>,
    #[serde(default)]
    rules: Rules,
    #[serde(default)]
    output: Output,
    #[serde(default)]
    suppress: Vec<Pattern>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    #[serde(default)]
    select: Vec<String>,
    #[serde(default)]
    ignore: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Output {
    format: Option<String>,
    file: Option<PathBuf>,
    /// `helpUri` of each SARIF rule is this plus `<rule-id>.md`.
    help_uri_base: Option<String>,
    /// Prepended to source paths in SARIF and `github` output
    /// (`src/main/java`), so code scanning finds the files.
    source_root: Option<String>,
}

/// Settings only the file can give (no flag for them).
#[derive(Debug, Clone, Default)]
pub struct FileSettings {
    pub suppress: Vec<Pattern>,
    pub help_uri_base: Option<String>,
    pub source_root: Option<String>,
}

/// The nearest `lockstep.toml` from `start` upward.
pub fn find(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(FILE_NAME))
        .find(|candidate| candidate.is_file())
}

/// Reads and parses the file at `path`.
pub fn read(path: &Path) -> Result<Config, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))
}

/// Applies the nearest config file (if any) under the flags of `args`.
pub fn apply_nearest(args: &mut CheckArgs) -> Result<(), String> {
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    match find(&cwd) {
        Some(path) => {
            let config = read(&path)?;
            merge(args, config, &path)
        }
        None => Ok(()),
    }
}

/// Fills what the flags left unset from `config` (read from `path`).
pub fn merge(args: &mut CheckArgs, config: Config, path: &Path) -> Result<(), String> {
    let base = path.parent().unwrap_or(Path::new("."));
    let resolve =
        |paths: Vec<PathBuf>| -> Vec<PathBuf> { paths.into_iter().map(|p| base.join(p)).collect() };
    let input = &mut args.input;
    if input.paths.is_empty() {
        input.paths = resolve(config.inputs);
    }
    if input.classpath.is_empty() {
        input.classpath = resolve(config.classpath);
    }
    if input.module_path.is_empty() {
        input.module_path = resolve(config.module_path);
    }
    input.no_jdk |= config.no_jdk.unwrap_or(false) && input.jdk.is_none();
    if input.jdk.is_none() && !input.no_jdk {
        input.jdk = config.jdk.map(|p| base.join(p));
    }
    args.open |= config.open.unwrap_or(false);
    args.fail_on_problems |= config.fail_on_problems.unwrap_or(false);
    // Either flag on the command line wins over the file.
    if !args.container_models && !args.no_container_models {
        args.no_container_models = config.container_models == Some(false);
    }
    if args.min_confidence.is_none() {
        if let Some(name) = &config.min_confidence {
            let min = name
                .parse()
                .map_err(|e| format!("{}: min-confidence: {e}", path.display()))?;
            args.min_confidence = Some(min);
        }
    }
    if args.select.is_empty() {
        args.select = config.rules.select;
    }
    if args.ignore.is_empty() {
        args.ignore = config.rules.ignore;
    }
    if args.baseline.is_none() {
        args.baseline = config.baseline.map(|p| base.join(p));
    }
    if args.format.is_none() {
        if let Some(name) = &config.output.format {
            let format = Format::from_str(name, false).map_err(|_| {
                format!(
                    "{}: output.format: unknown format `{name}` (text, concise, json, sarif, github)",
                    path.display()
                )
            })?;
            args.format = Some(format);
        }
    }
    if args.output.is_none() {
        args.output = config.output.file.map(|p| base.join(p));
    }
    args.file_settings = FileSettings {
        suppress: config.suppress,
        help_uri_base: config.output.help_uri_base,
        source_root: config.output.source_root,
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_named() {
        let err = toml::from_str::<Config>("inputs = []\nclaspath = [\"x\"]\n")
            .unwrap_err()
            .message()
            .to_string();
        assert!(err.contains("unknown field `claspath`"), "{err}");
        let err = toml::from_str::<Config>("[output]\nfromat = \"json\"\n")
            .unwrap_err()
            .message()
            .to_string();
        assert!(err.contains("unknown field `fromat`"), "{err}");
        let err = toml::from_str::<Config>("[[suppress]]\nrule = \"data-race\"\nclas = \"a.*\"\n")
            .unwrap_err()
            .message()
            .to_string();
        assert!(err.contains("unknown field `clas`"), "{err}");
    }

    /// `container-models = false` switches the models off unless a flag
    /// says either way.
    #[test]
    fn container_models_key_yields_to_flags() {
        use clap::Parser;
        let args_of = |flags: &[&str], file: &str| -> CheckArgs {
            let argv = ["lockstep", "check", "x.jar"].iter().chain(flags);
            let crate::args::Command::Check(mut a) =
                crate::args::Cli::try_parse_from(argv).unwrap().command
            else {
                panic!("not check")
            };
            let config: Config = toml::from_str(file).unwrap();
            merge(&mut a, config, Path::new("lockstep.toml")).unwrap();
            a
        };
        assert!(!args_of(&[], "").no_container_models);
        assert!(args_of(&[], "container-models = false").no_container_models);
        assert!(!args_of(&[], "container-models = true").no_container_models);
        let forced = args_of(&["--container-models"], "container-models = false");
        assert!(!forced.no_container_models);
        assert!(args_of(&["--no-container-models"], "container-models = true").no_container_models);
    }

    #[test]
    fn finds_the_nearest_file_upward() {
        let tmp = tempfile::tempdir().unwrap();
        let deep = tmp.path().join("a/b/c");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(find(&deep), None);
        std::fs::write(tmp.path().join("a").join(FILE_NAME), "").unwrap();
        assert_eq!(find(&deep), Some(tmp.path().join("a").join(FILE_NAME)));
        std::fs::write(deep.join(FILE_NAME), "").unwrap();
        assert_eq!(find(&deep), Some(deep.join(FILE_NAME)));
    }
}
