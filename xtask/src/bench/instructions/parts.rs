//! Where a workload's instructions go: cachegrind's counts per function, summed into a few
//! parts of the engine by the function that holds each instruction (inlined code counts for the
//! function it is inlined into, so a handle's operations count for the caller).

use std::collections::BTreeMap;

/// The parts, in table order: (id, column title). An instruction belongs to the first part whose
/// test its function's name passes; [`REST`] takes the others.
pub const PARTS: [(&str, &str); 6] = [
    ("sweep", "backward sweep"),
    ("writes", "statement writes (out of line)"),
    ("libm", "math (libm, glibc)"),
    ("nn", "autograd-nn (out of line)"),
    ("memory", "memset, memcpy"),
    (
        REST,
        "the rest (the tape's: handles' operations, inlined, and the function)",
    ),
];

/// The part of everything no other part's test claims.
pub const REST: &str = "rest";

/// The part function `name` (a demangled symbol) of source file `file` belongs to.
fn part_of(file: &str, name: &str) -> &'static str {
    let has = |s: &str| name.contains(s);
    if has("tape::backward") {
        "sweep"
    } else if has("merge_shared")
        || has("write_apart")
        || has("layer::write")
        || has("layer::flush")
        || has("layer::to_flush")
        || has("layer::stack")
        || has("tape::write")
        || has("var::nary")
        || has("non_finite")
        || has("Var<S>>::written")
    {
        "writes"
    } else if name.starts_with("libm::") || file.contains("sysdeps/ieee754") {
        "libm"
    } else if name.starts_with("autograd_nn::") {
        "nn"
    } else if has("memset") || has("memcpy") || has("memmove") {
        "memory"
    } else {
        REST
    }
}

/// The total of a cachegrind output file (`--cache-sim=no`: one event, `Ir`) and its parts.
pub fn parse(out: &str) -> Option<(u64, BTreeMap<&'static str, u64>)> {
    let mut parts = BTreeMap::new();
    let (mut part, mut file) = (REST, "");
    let mut total = None;
    for line in out.lines() {
        if let Some(f) = line.strip_prefix("fl=") {
            file = f;
        } else if let Some(name) = line.strip_prefix("fn=") {
            part = part_of(file, name);
        } else if let Some(sum) = line.strip_prefix("summary:") {
            total = sum.trim().parse().ok();
        } else if line.starts_with(|c: char| c.is_ascii_digit()) {
            // `line count`
            let count: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            *parts.entry(part).or_insert(0) += count;
        }
    }
    Some((total?, parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_go_to_their_functions_parts() {
        let out = "desc: I1 cache: 32768 B\ncmd: profile rosenbrock 100 10\nevents: Ir\n\
                   fl=/work/main/autograd-core/src/var.rs\nfn=profile::main\n12 100\n13 20\n\
                   fn=autograd_core::var::merge_shared\n40 30\n\
                   fl=/work/main/autograd-core/src/tape/backward.rs\n\
                   fn=autograd_core::tape::backward::<impl autograd_core::tape::TapeView<S>>::sweep\n\
                   7 25\nfl=exp.rs\nfn=libm::math::exp::exp\n3 5\n\
                   fl=./math/../sysdeps/ieee754/dbl-64/s_sin.c\nfn=__sin_fma\n9 4\n\
                   fl=memset.S\nfn=__memset_avx2_unaligned_erms\n1 1000\nsummary: 1184\n";
        let (total, parts) = parse(out).unwrap();
        assert_eq!(total, 1184);
        assert_eq!(parts[REST], 120);
        assert_eq!(parts["writes"], 30);
        assert_eq!(parts["sweep"], 25);
        assert_eq!(parts["libm"], 9);
        assert_eq!(parts["memory"], 1000);
        assert_eq!(parts.values().sum::<u64>(), total);
        assert_eq!(parse("events: Ir\nfn=f\n1 2\n"), None, "no summary line");
    }

    #[test]
    fn the_engines_out_of_line_functions_have_their_parts() {
        let core = "/work/main/autograd-core/src/tape/backward.rs";
        assert_eq!(
            part_of(core, "autograd_core::tape::backward::sweep_layer"),
            "sweep"
        );
        assert_eq!(part_of(core, "autograd_core::var::layer::write"), "writes");
        // A residual layer's inputs written as statements, and the writer called again.
        for f in ["write_flushed", "flush", "to_flush"] {
            let name = format!("autograd_core::var::layer::{f}");
            assert_eq!(part_of(core, &name), "writes", "{name}");
        }
        let stack = "autograd_core::var::layer::stack::write_stack";
        assert_eq!(part_of(core, stack), "writes");
        let nn = "autograd_nn::mlp::forward::<impl autograd_nn::mlp::Layer>::forward_by";
        assert_eq!(part_of("forward.rs", nn), "nn");
        assert_eq!(part_of("var.rs", "profile::main"), REST);
        // glibc's, which easy-ml's `f64::sin` calls.
        let sin = "./math/../sysdeps/ieee754/dbl-64/s_sin.c";
        assert_eq!(part_of(sin, "__sin_fma"), "libm");
    }
}
