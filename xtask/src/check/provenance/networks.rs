//! Small MLPs over handles and over leaves (layer statements) with a non-finite input or
//! parameter, judged by their plain `f64` pre-activations.

use autograd_core::{AnomalyKind, Op, Tape, Var};
use autograd_nn::{Activation, Init, Mlp, Rng as NnRng};

use super::super::nn::pre_activations;
use super::super::{Case, Outcome, Suite};
use super::same_class;

/// A small network for the network cases, and the ways it is made to go non-finite.
const NET: [usize; 4] = [2, 4, 3, 1];

/// How a network case makes a value non-finite.
#[derive(Clone, Copy, Debug)]
enum Spoil {
    /// Input `k` is this value.
    Input(usize, f64),
    /// Parameter `k` is this value (the input stays finite).
    Param(usize, f64),
}

/// The plain `f64` pre-activations of `net` at `params` and `x` (`nn::pre_activations`), with
/// whether each unit's recorded operands can all be finite: the first layer's inputs are
/// constants (not statements), so a unit of it is where a non-finite sum starts; a later unit is
/// where it starts only if the layer before gave it finite inputs.
fn origins_of(net: &Mlp<4>, params: &[f64], x: &[f64]) -> Vec<(f64, bool)> {
    let mut out = Vec::new();
    pre_activations(net, params, x, |l, inputs, z| {
        out.push((z, l == 0 || inputs.iter().all(|v| v.is_finite())));
    });
    out
}

/// One network case: both recording paths (parameters as handles, and as leaves through layer
/// statements) judged by the plain pre-activations.
fn check_network(act: Activation, spoil: Spoil, seed: u64) -> Option<String> {
    let net = Mlp::new(NET, act, Activation::Linear);
    let mut params = vec![0.0; net.param_count()];
    if let Err(e) = net.init(&mut params, Init::Uniform, &mut NnRng::new(seed)) {
        return Some(e.to_string());
    }
    let mut x = [1.5, -2.0];
    // A parameter given a non-finite value is itself where it starts: a leaf that holds it.
    let mut bad_leaf = None;
    match spoil {
        Spoil::Input(k, v) => x[k] = v,
        Spoil::Param(k, v) => {
            params[k] = v;
            bad_leaf = (!v.is_finite()).then_some(k);
        }
    }
    let plain = origins_of(&net, &params, &x);
    let mut out = [0.0];
    if let Err(e) = net.forward(&params, &x, &mut out) {
        return Some(e.to_string());
    }
    // Where the non-finite values start: units whose inputs are finite, their sum not.
    let origins: Vec<f64> = plain
        .iter()
        .filter(|(z, finite_in)| *finite_in && !z.is_finite())
        .map(|&(z, _)| z)
        .collect();
    let Some(&first) = origins.first() else {
        return Some(format!(
            "{spoil:?} makes nothing non-finite: not a provenance case"
        ));
    };
    for leaves in [false, true] {
        let path = if leaves {
            "over leaves"
        } else {
            "over handles"
        };
        let tape = Tape::<f64, 512>::new();
        let p: Vec<Var<f64>> = params.iter().map(|&v| tape.var(v)).collect();
        let xs = x.map(Var::constant);
        let mut y = [Var::constant(0.0)];
        let recorded = match (leaves, p[0].id()) {
            (true, Some(id)) => tape
                .leaves(id, p.len())
                .map_err(|e| e.to_string())
                .and_then(|l| {
                    net.forward_leaves(l, &xs, &mut y)
                        .map_err(|e| e.to_string())
                }),
            _ => net.forward(&p, &xs, &mut y).map_err(|e| e.to_string()),
        };
        if let Err(e) = recorded {
            return Some(format!("{path}: {e}"));
        }
        let at = format!("{path}, {spoil:?}");
        let y = y[0];
        if y.value().to_bits() != out[0].to_bits() && !same_class(y.value(), out[0]) {
            return Some(format!(
                "{at}: output {} on the tape, {} in plain f64",
                y.value(),
                out[0]
            ));
        }
        // The first statement that went non-finite is the parameter given a non-finite value,
        // or else the first unit where it started.
        let Some(f) = tape.first_non_finite() else {
            return Some(format!(
                "{at}: pre-activation {first} in plain f64, but no report"
            ));
        };
        let leaf = |a: &autograd_core::Anomaly<f64>| {
            bad_leaf.is_some_and(|k| {
                (a.index, a.op, a.kind) == (k, Op::Leaf, AnomalyKind::Value)
                    && same_class(a.value, params[k])
            })
        };
        let started = |a: &autograd_core::Anomaly<f64>| {
            a.kind == AnomalyKind::Value
                && a.op == Op::Dot
                && a.inputs().iter().all(|i| i.value.is_finite())
        };
        if let Some(k) = bad_leaf {
            if !leaf(&f) {
                return Some(format!(
                    "{at}: parameter {k} holds {}, but `first_non_finite` reports: {f}",
                    params[k]
                ));
            }
        } else if !started(&f) || !same_class(f.value, first) {
            return Some(format!(
                "{at}: the first non-finite pre-activation is {first} (plain f64), but \
                 `first_non_finite` reports: {f}"
            ));
        }
        // A non-finite output is traced to a unit where it started.
        if !y.value().is_finite() {
            match tape.anomaly(y) {
                Some(a) if leaf(&a) => {}
                Some(a)
                    if bad_leaf.is_none()
                        && started(&a)
                        && origins.iter().any(|&z| same_class(a.value, z)) => {}
                Some(a) => {
                    return Some(format!(
                        "{at}: output {}, traced to a statement that is not a unit where it \
                         started (plain f64: {origins:?}): {a}",
                        y.value()
                    ))
                }
                None => return Some(format!("{at}: output {}, but no report", y.value())),
            }
        }
    }
    None
}

/// The network cases: five hidden activations, six ways to go non-finite, two seeds.
pub(super) fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let acts = [
        ("tanh", Activation::Tanh),
        ("relu", Activation::Relu),
        ("sigmoid", Activation::Sigmoid),
        ("leaky_relu", Activation::LeakyRelu(0.1)),
        // No activation: a NaN or infinite unit is no statement of its own, and goes on through
        // the next layer statements as their rows' values.
        ("linear", Activation::Linear),
    ];
    // Parameter 3 is the second unit's first weight; 12 the first weight of the second layer's
    // first unit (after 4 units of 3 parameters).
    let spoils = [
        Spoil::Input(0, f64::NAN),
        Spoil::Input(1, f64::INFINITY),
        Spoil::Input(0, f64::NEG_INFINITY),
        Spoil::Param(3, f64::MAX),
        Spoil::Param(3, f64::NAN),
        Spoil::Param(12, f64::INFINITY),
    ];
    for (an, act) in acts {
        for spoil in spoils {
            for seed in [1, 2] {
                cases.push(Case {
                    suite: Suite::Provenance,
                    name: format!("[2,4,3,1] {an} {spoil:?} #{seed}"),
                    run: Box::new(move || match check_network(act, spoil, seed) {
                        Some(f) => Outcome::failure(format!("[2,4,3,1] {an}: {f}")),
                        None => Outcome::default(),
                    }),
                });
            }
        }
    }
    cases
}
