//! The tools a firmware run needs: the rustup targets, QEMU and `arm-none-eabi-size`. What is
//! missing is installed only when asked (`--install`) or on CI (the variable `CI` set, as every
//! CI service does); otherwise the task prints the commands that would install it and exits 2.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;

use crate::toolchain::available;

/// The programs run on the host, with the Debian package that provides each.
const PROGRAMS: [(&str, &str); 2] = [
    ("qemu-system-arm", "qemu-system-arm"),
    ("arm-none-eabi-size", "binutils-arm-none-eabi"),
];

/// What is missing on this machine.
#[derive(Debug, Default, PartialEq)]
pub struct Missing {
    /// Programs not found, with their Debian package.
    pub programs: Vec<(&'static str, &'static str)>,
    /// Rust targets rustup does not have installed.
    pub targets: Vec<String>,
}

impl Missing {
    pub fn is_empty(&self) -> bool {
        self.programs.is_empty() && self.targets.is_empty()
    }

    fn packages(&self) -> Vec<&'static str> {
        self.programs.iter().map(|(_, package)| *package).collect()
    }

    /// The commands that install what is missing, one a line.
    pub fn commands(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.programs.is_empty() {
            out.push(format!(
                "apt-get install -y --no-install-recommends {}",
                self.packages().join(" ")
            ));
        }
        if !self.targets.is_empty() {
            out.push(format!("rustup target add {}", self.targets.join(" ")));
        }
        out
    }

    /// The message of a run that may not install: what is missing and how to install it.
    pub fn message(&self) -> String {
        let mut what: Vec<String> = self.programs.iter().map(|(p, _)| p.to_string()).collect();
        what.extend(self.targets.iter().map(|t| format!("the rust target {t}")));
        let commands: Vec<String> = self.commands().iter().map(|c| format!("  {c}")).collect();
        format!(
            "missing {}; install with (apt-get as root):\n{}\nor run `cargo xtask firmware \
             --install`, which runs these (the default when the variable CI is set)",
            what.join(", "),
            commands.join("\n")
        )
    }
}

/// Whether missing tools are installed: `--install`/`--no-install` decide, else whether the
/// variable `CI` is set (to anything but empty, `0` or `false`).
pub fn should_install(flag: Option<bool>, ci: Option<&OsStr>) -> bool {
    flag.unwrap_or_else(|| ci.is_some_and(|v| !v.is_empty() && v != "0" && v != "false"))
}

/// What of the programs and `targets` is missing. Without rustup, a target whose standard
/// library did not come with the toolchain is an error (nothing here can add it).
fn missing(targets: &[&str]) -> Result<Missing, String> {
    let mut m = Missing {
        programs: PROGRAMS
            .into_iter()
            .filter(|(p, _)| !available(p))
            .collect(),
        targets: Vec::new(),
    };
    if available("rustup") {
        let installed = Command::new("rustup")
            .args(["target", "list", "--installed"])
            .output()
            .map_err(|e| format!("rustup target list: {e}"))?;
        let installed = String::from_utf8_lossy(&installed.stdout).into_owned();
        m.targets = targets
            .iter()
            .filter(|t| !installed.lines().any(|l| l.trim() == **t))
            .map(|t| t.to_string())
            .collect();
    } else {
        for t in targets {
            let libdir = Command::new("rustc")
                .args(["--print", "target-libdir", "--target", t])
                .output()
                .ok()
                .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
            if !libdir.is_some_and(|d| d.is_dir()) {
                return Err(format!(
                    "no standard library for {t} and no rustup to add it: install the target"
                ));
            }
        }
    }
    Ok(m)
}

/// Installs what is missing when `install`, else explains what to install (exit status 2).
pub fn ensure(targets: &[&str], install: bool) -> Result<(), String> {
    let m = missing(targets)?;
    if m.is_empty() {
        return Ok(());
    }
    if !install {
        return Err(m.message());
    }
    if !m.programs.is_empty() {
        let packages = m.packages();
        if !available("apt-get") {
            return Err(format!(
                "missing {} and apt-get is not available: install QEMU (qemu-system-arm) and \
                 binutils for arm-none-eabi with your package manager",
                packages.join(", ")
            ));
        }
        outln!("firmware: installing {} (apt-get)", packages.join(" "));
        let apt = |args: &[&str]| {
            Command::new("apt-get")
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .status()
                .is_ok_and(|s| s.success())
        };
        let mut install_args = vec!["install", "-y", "-qq", "--no-install-recommends"];
        install_args.extend(&packages);
        let installed = apt(&["update", "-qq"])
            && apt(&install_args)
            && PROGRAMS.iter().all(|(p, _)| available(p));
        if !installed {
            return Err(format!(
                "could not install {} with apt-get (are you root?); run `apt-get update && {}` \
                 as root",
                packages.join(" "),
                m.commands()[0]
            ));
        }
    }
    if !m.targets.is_empty() {
        outln!("firmware: rustup target add {}", m.targets.join(" "));
        let ok = Command::new("rustup")
            .args(["target", "add"])
            .args(&m.targets)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err(format!(
                "`rustup target add {}` failed",
                m.targets.join(" ")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installs_only_when_asked_or_on_ci() {
        let ci = |v: &str| should_install(None, Some(OsStr::new(v)));
        assert!(!should_install(None, None));
        assert!(ci("true") && ci("1") && ci("yes"));
        assert!(!ci("") && !ci("0") && !ci("false"));
        assert!(should_install(Some(true), None));
        assert!(!should_install(Some(false), Some(OsStr::new("true"))));
    }

    #[test]
    fn the_message_names_what_is_missing_and_the_commands() {
        let m = Missing {
            programs: vec![PROGRAMS[0]],
            targets: vec!["thumbv6m-none-eabi".into()],
        };
        assert_eq!(
            m.message(),
            "missing qemu-system-arm, the rust target thumbv6m-none-eabi; install with (apt-get \
             as root):\n  apt-get install -y --no-install-recommends qemu-system-arm\n  rustup \
             target add thumbv6m-none-eabi\nor run `cargo xtask firmware --install`, which runs \
             these (the default when the variable CI is set)"
        );
        let only_size = Missing {
            programs: vec![PROGRAMS[1]],
            targets: Vec::new(),
        };
        assert_eq!(
            only_size.commands(),
            ["apt-get install -y --no-install-recommends binutils-arm-none-eabi"]
        );
        assert!(Missing::default().is_empty() && !only_size.is_empty());
    }
}
