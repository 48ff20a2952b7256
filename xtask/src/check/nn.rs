//! The `nn` suite: the losses of small MLPs (autograd-nn) as functions of their parameters, for
//! every hidden activation and loss, reverse mode against forward mode and differences, and the
//! gradient `autograd-nn`'s `Trainer` takes (parameters as leaves) against forward mode.

use autograd_core::{gradient_forward, Function, Number, Tape};
use autograd_nn::data::Sample;
use autograd_nn::{
    Activation, BceWithLogits, Hinge, Init, Loss, Mlp, Objective, Rng as NnRng,
    SoftmaxCrossEntropy, SquaredError, Trainer,
};

use super::expr::Rng;
use super::judge::{compare, gradient_case, CheckScalar};
use super::{Case, Options, Outcome, Suite};

/// A loss of a small MLP as a function of its parameters.
struct NetLoss<L, const D: usize> {
    objective: Objective<L, D>,
    batch: Vec<Sample<2>>,
}

impl<L: Loss, const D: usize> Function for NetLoss<L, D> {
    fn eval<T: Number>(&self, params: &[T]) -> T {
        // Shapes are fixed by construction below; an error would be a bug in this suite, and
        // NaN makes the case fail loudly rather than pass.
        self.objective
            .evaluate(params, &self.batch)
            .unwrap_or_else(|_| T::from_f64(f64::NAN))
    }
}

fn net_case<L: Loss + Copy + Send + Sync + 'static, const D: usize>(
    name: String,
    objective: Objective<L, D>,
    batch: Vec<Sample<2>>,
    seed: u64,
) -> Case {
    Case {
        suite: Suite::Nn,
        name: name.clone(),
        run: Box::new(move || {
            let mut params = vec![0.0_f64; objective.model.param_count()];
            if let Err(e) = objective
                .model
                .init(&mut params, Init::Uniform, &mut NnRng::new(seed))
            {
                return Outcome::failure(format!("{name}: {e}"));
            }
            let f = NetLoss {
                objective,
                batch: batch.clone(),
            };
            let kink = kink_margin(&objective, &params, &batch);
            let outcome = gradient_case::<f64, _>(&f, &params, kink, None, &|| name.clone());
            if outcome.failure.is_some() || outcome.skipped.is_some() {
                return outcome;
            }
            trainer_agrees(&f, &params, outcome, &name)
        }),
    }
}

/// `outcome` with one more comparison: the gradient `autograd-nn`'s `Trainer` takes (its layers
/// read the parameters as leaves of its tape, its gradient read back from their slots: a path
/// the reverse mode over handles above does not take) against forward mode's.
fn trainer_agrees<L: Loss, const D: usize>(
    f: &NetLoss<L, D>,
    params: &[f64],
    mut outcome: Outcome,
    name: &str,
) -> Outcome {
    let trainer = match params.len() {
        NET_PARAMS => trainer_gradient::<L, D, NET_PARAMS>(f, params),
        NET3_PARAMS => trainer_gradient::<L, D, NET3_PARAMS>(f, params),
        NARROW_PARAMS => trainer_gradient::<L, D, NARROW_PARAMS>(f, params),
        n => Err(format!("no trainer for {n} parameters in this suite")),
    };
    let mut fwd = vec![0.0; params.len()];
    let both = trainer.and_then(|g| {
        gradient_forward(f, params, &mut fwd)
            .map(|_| g)
            .map_err(|e| e.to_string())
    });
    let trainer = match both {
        Ok(g) => g,
        Err(e) => return Outcome::failure(format!("{name}: the trainer's gradient: {e}")),
    };
    let (ok, error, index) = compare(&trainer, &fwd, <f64 as CheckScalar>::between());
    outcome.errors.push(("trainer vs forward", error));
    if !ok {
        outcome.failure = Some(format!(
            "{name}: autograd-nn's Trainer gives d/dp{index} = {:e}, forward mode {:e}",
            trainer[index], fwd[index]
        ));
    }
    outcome
}

/// The widths of the suite's networks, and their parameter counts (which do not depend on the
/// activations).
const NET: [usize; 4] = [2, 4, 3, 1];
const NET3: [usize; 3] = [2, 5, 3];
/// A network whose last layer has one input: no layer statement (that takes two inputs or more),
/// so the `Trainer` records that layer through `affine_layer_of`'s row-by-row fallback.
const NARROW: [usize; 4] = [2, 3, 1, 1];
const NET_PARAMS: usize = Mlp::new(NET, Activation::Linear, Activation::Linear).param_count();
const NET3_PARAMS: usize = Mlp::new(NET3, Activation::Linear, Activation::Linear).param_count();
const NARROW_PARAMS: usize = Mlp::new(NARROW, Activation::Linear, Activation::Linear).param_count();

/// `Trainer::gradient` of `f`'s objective on its batch at `params` (`P` of them).
fn trainer_gradient<L: Loss, const D: usize, const P: usize>(
    f: &NetLoss<L, D>,
    params: &[f64],
) -> Result<Vec<f64>, String> {
    let params: [f64; P] = params
        .try_into()
        .map_err(|_| format!("{} parameters, not {P}", params.len()))?;
    let mut tape = Box::new(Tape::<f64, 4096>::new());
    let mut trainer = Trainer::new(&mut tape, &params).map_err(|e| e.to_string())?;
    trainer
        .gradient(&f.objective, &params, &f.batch)
        .map_err(|e| e.to_string())?;
    Ok(trainer.grads().to_vec())
}

/// How close the network is to a kink, in parameter units: the smallest |pre-activation| of a
/// relu-like hidden neuron, and for the hinge loss the smallest |1 - y s|, each divided by
/// `1 + sum |inputs|` of that neuron (a parameter step `h` moves its pre-activation by about
/// `h (1 + sum |inputs|)`). Infinite for smooth networks and losses. A heuristic bound, used
/// only to decide whether central differences straddle a kink.
fn kink_margin<L: Loss, const D: usize>(
    objective: &Objective<L, D>,
    params: &[f64],
    batch: &[Sample<2>],
) -> f64 {
    let model = objective.model;
    let kinky_hidden = matches!(
        model.hidden_activation(),
        Activation::Relu | Activation::LeakyRelu(_)
    );
    let hinge = core::any::type_name::<L>().ends_with("Hinge");
    let mut margin = f64::INFINITY;
    for s in batch {
        pre_activations(&model, params, &s.x, |l, x, z| {
            let last = l + 2 == D;
            let scale = 1.0 + x.iter().map(|v| v.abs()).sum::<f64>();
            if !last && kinky_hidden {
                margin = margin.min(z.abs() / scale);
            }
            if last && hinge {
                let label = if s.y > 0.0 { 1.0 } else { -1.0 };
                margin = margin.min((1.0 - label * z).abs() / scale);
            }
        });
    }
    margin
}

/// The plain `f64` pre-activations of `model` at `params` and input `x`, in the network's order
/// (layer by layer, unit by unit, each the bias plus the weights times the layer's inputs, as
/// micrograd sums them): `each(l, inputs, z)` for every unit of layer `l`, `inputs` that layer's
/// (the network's input, then the previous layer's activations).
pub(super) fn pre_activations<const D: usize>(
    model: &Mlp<D>,
    params: &[f64],
    x: &[f64],
    mut each: impl FnMut(usize, &[f64], f64),
) {
    let sizes = model.sizes();
    let mut input = x.to_vec();
    let mut offset = 0;
    for l in 0..D - 1 {
        let (n_in, n_out) = (sizes[l], sizes[l + 1]);
        let act = if l + 2 == D {
            model.output_activation()
        } else {
            model.hidden_activation()
        };
        let mut next = Vec::with_capacity(n_out);
        for _ in 0..n_out {
            let w = &params[offset..offset + n_in];
            let z = params[offset + n_in] + w.iter().zip(&input).map(|(a, b)| a * b).sum::<f64>();
            each(l, &input, z);
            next.push(act.apply(z));
            offset += n_in + 1;
        }
        input = next;
    }
}

pub fn cases(o: &Options) -> Vec<Case> {
    let mut rng = Rng::new(o.seed ^ 0x6e6e);
    let seeds_per_net = if o.quick { 2 } else { 8 };
    let acts = [
        ("tanh", Activation::Tanh),
        ("relu", Activation::Relu),
        ("sigmoid", Activation::Sigmoid),
        ("leaky_relu", Activation::LeakyRelu(0.1)),
    ];
    let mut batch = |n: usize, classes: usize| -> Vec<Sample<2>> {
        (0..n)
            .map(|_| Sample {
                x: [rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)],
                y: rng.below(classes) as f64,
            })
            .collect()
    };
    let mut cases = Vec::new();
    for k in 0..seeds_per_net {
        let seed = o.seed.wrapping_mul(1000) + k as u64;
        for (an, act) in acts {
            let net = Mlp::new(NET, act, Activation::Linear);
            let regression: Vec<Sample<2>> = batch(6, 2)
                .into_iter()
                .map(|s| Sample {
                    y: s.x[0] * s.x[1],
                    ..s
                })
                .collect();
            cases.push(net_case(
                format!("[2,4,3,1] {an} squared error #{k}"),
                Objective::new(net, SquaredError),
                regression,
                seed,
            ));
            cases.push(net_case(
                format!("[2,4,3,1] {an} hinge + 1e-4 L2 #{k}"),
                Objective::new(net, Hinge).with_l2(1e-4),
                batch(6, 2),
                seed,
            ));
            cases.push(net_case(
                format!("[2,4,3,1] {an} BCE with logits #{k}"),
                Objective::new(net, BceWithLogits),
                batch(6, 2),
                seed,
            ));
            let narrow: Vec<Sample<2>> = batch(6, 2)
                .into_iter()
                .map(|s| Sample {
                    y: s.x[0] - s.x[1],
                    ..s
                })
                .collect();
            cases.push(net_case(
                format!("[2,3,1,1] {an} squared error #{k}"),
                Objective::new(Mlp::new(NARROW, act, Activation::Linear), SquaredError),
                narrow,
                seed,
            ));
            let net3 = Mlp::new(NET3, act, Activation::Linear);
            cases.push(net_case(
                format!("[2,5,3] {an} softmax cross-entropy #{k}"),
                Objective::new(net3, SoftmaxCrossEntropy).with_l2(1e-3),
                batch(6, 3),
                seed,
            ));
        }
        let residual = Residual { batch: batch(4, 2) };
        let mut draw = Rng::new(seed ^ 0x7265_7369);
        let params: Vec<f64> = (0..RESIDUAL_PARAMS)
            .map(|_| draw.uniform(-1.0, 1.0))
            .collect();
        let name = format!("residual [2,4,4,4,1] tanh squared error #{k}");
        cases.push(Case {
            suite: Suite::Nn,
            name: name.clone(),
            run: Box::new(move || {
                gradient_case::<f64, _>(&residual, &params, f64::INFINITY, None, &|| name.clone())
            }),
        });
    }
    cases
}

/// The parameters of [`Residual`]: a layer of 4 over 2 inputs, two blocks of 4 over 4, a row.
const RESIDUAL_PARAMS: usize = 4 * 3 + 2 * 4 * 5 + 5;

/// The squared error of a residual network over its batch, written with `Number::affine_layer`:
/// `h = tanh(W1 x + b1)`, then twice `h = h + tanh(W h + b)`, then `y = w . h + b` (target
/// `x0 x1`). The second block's inputs carry two pending partials each on a tape, which the
/// layer writer records as statements of their own before the layer statement
/// (`var/layer/flush.rs`); the output row's too, which the general write takes.
struct Residual {
    batch: Vec<Sample<2>>,
}

impl Function for Residual {
    fn eval<T: Number>(&self, p: &[T]) -> T {
        let (first, rest) = p.split_at(4 * 3);
        let (blocks, out) = rest.split_at(2 * 4 * 5);
        let mut loss = T::zero();
        for s in &self.batch {
            let x = s.x.map(T::from_f64);
            let mut h = [T::zero(); 4];
            T::affine_layer(first, &x, &mut h);
            let mut h = h.map(T::tanh);
            for block in blocks.chunks_exact(4 * 5) {
                let mut f = [T::zero(); 4];
                T::affine_layer(block, &h, &mut f);
                for (hi, fi) in h.iter_mut().zip(f) {
                    *hi += fi.tanh();
                }
            }
            let mut y = [T::zero()];
            T::affine_layer(out, &h, &mut y);
            loss += (y[0] - T::from_f64(s.x[0] * s.x[1])).square();
        }
        loss
    }
}
