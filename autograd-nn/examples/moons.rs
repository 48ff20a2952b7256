//! micrograd's demo: two moons (100 points, noise 0.1), MLP [2, 16, 16, 1] with relu hidden
//! layers and a linear score, SVM max-margin hinge loss plus 1e-4 L2, full-batch SGD for 100
//! steps with micrograd's learning rate 1.0 - 0.9 k / 100. Prints a progress line every 10 steps
//! and the time per step, and writes an SVG of the decision boundary, the points and the loss
//! curve.
//!
//! `cargo run --release -p autograd-nn --example moons [-- [--small-tape] [OUT.svg [SEED]]]`
//! (default output: `target/moons.svg`, default seed 1337, micrograd's).
//!
//! Memory: by default the whole batch is recorded on one 1.6 MB tape (on the heap) and each
//! step is one backward sweep, as in micrograd. `--small-tape` trains the same way on a 41 KB
//! tape on the stack that holds the parameters, the penalty and one sample: the trainer then
//! sweeps once per sample and sums the gradients, giving the same result in bounded memory
//! (the layout a microcontroller would use).
//!
//! `tests/examples.rs` includes this file and checks the claims printed here.
use std::error::Error;
use std::ops::ControlFlow;
use std::process::ExitCode;
use std::time::Instant;

use autograd_core::{Tape, TapeView};
use autograd_nn::data::{self, Sample};
use autograd_nn::{
    Activation, Hinge, Init, LearningRate, Mlp, NnError, Objective, Rng, Sgd, Stats, TrainConfig,
    Trainer,
};
use plotters::prelude::*;

const MODEL: Mlp<4> = Mlp::new([2, 16, 16, 1], Activation::Relu, Activation::Linear);
const P: usize = MODEL.param_count();
const N: usize = 100;
const STEPS: usize = 100;
/// The whole batch on one tape, so a step is one backward sweep. Sized by bounds, with room to
/// spare: the parameters, `2P + 1` for the penalty (one statement of at most `P + 1` slots),
/// and per sample 2 for the inputs (constants, which take none), the forward pass's bound
/// `forward_slots()` (674; the layer statements take 70), the hinge (4) and the sum. The run
/// prints what a sample took (74 slots).
const TAPE_NODES: usize = P + 2 * P + 1 + N * (2 + MODEL.forward_slots() + 5) + 8;
/// The parameters, the penalty and one sample, by the same bounds (`--small-tape`: several
/// sweeps a step).
const SMALL_TAPE_NODES: usize = P + 2 * P + 1 + (2 + MODEL.forward_slots() + 5) + 8;
const USAGE: &str = "usage: moons [--small-tape] [OUT.svg [SEED]]";

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let small_tape = args.first().is_some_and(|a| a == "--small-tape");
    if small_tape {
        args.remove(0);
    }
    if args.len() > 2 || args.first().is_some_and(|a| a.starts_with('-')) {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let out = args
        .first()
        .cloned()
        .unwrap_or_else(|| "target/moons.svg".to_string());
    let seed = match args.get(1).map(|s| s.parse::<u64>()) {
        None => 1337,
        Some(Ok(seed)) => seed,
        Some(Err(e)) => {
            eprintln!("{USAGE}  (SEED: an unsigned integer; {e})");
            return ExitCode::from(2);
        }
    };
    let run = match train(seed, true, small_tape) {
        Ok(run) => run,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match draw(&out, &run.params, &run.data, &run.losses) {
        Ok(()) => {
            println!("wrote {out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// A finished run.
pub struct MoonsRun {
    /// Trained parameters.
    pub params: [f64; P],
    /// The training points.
    pub data: [Sample<2>; N],
    /// Loss at each step (before its update).
    pub losses: Vec<f64>,
    /// Loss and accuracy after the last update.
    pub stats: Stats,
    /// Updates made.
    pub updates: usize,
    /// Wall-clock seconds per training step.
    pub seconds_per_step: f64,
}

/// Trains from `seed`, printing progress if `verbose`, on a tape for the whole batch or (if
/// `small_tape`) for one sample.
pub fn train(seed: u64, verbose: bool, small_tape: bool) -> Result<MoonsRun, NnError> {
    let mut data = data::moons::<N>(0.1, seed);
    let mut params = [0.0_f64; P];
    MODEL.init(&mut params, Init::Uniform, &mut Rng::new(seed))?;
    let objective = Objective::new(MODEL, Hinge).with_l2(1e-4);

    let (mut big, mut small);
    let (tape, nodes): (&mut TapeView<f64>, usize) = if small_tape {
        small = Tape::<f64, SMALL_TAPE_NODES>::new();
        (&mut small, SMALL_TAPE_NODES)
    } else {
        big = Tape::<f64, TAPE_NODES>::boxed();
        (&mut big, TAPE_NODES)
    };
    let mut trainer = Trainer::new(tape, &params)?;
    let mut sgd = Sgd::new(LearningRate::Linear {
        start: 1.0,
        end: 0.1,
        steps: STEPS,
    });
    if verbose {
        println!(
            "two moons: {N} points, MLP [2, 16, 16, 1] relu, {P} parameters, hinge + 1e-4 L2, \
             tape of {nodes} nodes ({:.3} MB)",
            (nodes * 24) as f64 / 1e6
        );
    }
    let mut losses = Vec::with_capacity(STEPS);
    let start = Instant::now();
    let outcome = trainer.train(
        &objective,
        &mut params,
        &mut data,
        &mut sgd,
        &TrainConfig::steps(STEPS),
        |p| {
            losses.push(p.loss);
            if verbose && (p.step % 10 == 0 || p.step + 1 == STEPS) {
                println!(
                    "step {:3} loss {:.6}, accuracy {:5.1}%  (lr {:.3})",
                    p.step,
                    p.loss,
                    p.accuracy.unwrap_or(0.0) * 100.0,
                    p.learning_rate
                );
            }
            ControlFlow::Continue(())
        },
    )?;
    let seconds_per_step = start.elapsed().as_secs_f64() / outcome.updates.max(1) as f64;
    let stats = objective.stats(&params, &data)?;
    if verbose {
        println!(
            "after {} steps: loss {:.6}, training accuracy {:.1}% ({}/{})",
            outcome.updates,
            stats.loss,
            stats.accuracy().unwrap_or(0.0) * 100.0,
            stats.correct,
            stats.samples
        );
        println!(
            "time per training step: {:.3} ms ({} backward sweep(s), {} slots per sample)",
            seconds_per_step * 1e3,
            trainer.sweeps(),
            trainer.slots_per_sample()
        );
    }
    Ok(MoonsRun {
        params,
        data,
        losses,
        stats,
        updates: outcome.updates,
        seconds_per_step,
    })
}

fn score(params: &[f64; P], x: f64, y: f64) -> f64 {
    let mut s = [0.0];
    MODEL
        .forward(params, &[x, y], &mut s)
        .expect("sizes are fixed");
    s[0]
}

/// Writes the SVG: decision boundary with the points, and the loss curve.
pub fn draw(
    path: &str,
    params: &[f64; P],
    data: &[Sample<2>],
    losses: &[f64],
) -> Result<(), Box<dyn Error>> {
    if let Some(dir) = std::path::Path::new(path).parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
    }
    let root = SVGBackend::new(path, (1100, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(560);

    // Decision boundary: the sign of the score on a grid, like micrograd's contourf.
    let (x0, x1, y0, y1) = (-1.6, 2.6, -1.2, 1.7);
    let mut chart = ChartBuilder::on(&left)
        .caption("decision boundary (score > 0: class 1)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(40)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart.configure_mesh().disable_mesh().draw()?;
    let cells = 120;
    let (dx, dy) = ((x1 - x0) / cells as f64, (y1 - y0) / cells as f64);
    let (pos, neg) = (RGBColor(255, 214, 170), RGBColor(176, 204, 255));
    // One rectangle per run of equal sign along a row keeps the SVG small.
    let mut runs = Vec::new();
    for j in 0..cells {
        let y = y0 + j as f64 * dy;
        let mut run_start = 0;
        let mut run_sign = score(params, x0 + dx / 2.0, y + dy / 2.0) > 0.0;
        for i in 1..=cells {
            let sign = i < cells && score(params, x0 + (i as f64 + 0.5) * dx, y + dy / 2.0) > 0.0;
            if i == cells || sign != run_sign {
                let color = if run_sign { pos } else { neg };
                let (xa, xb) = (x0 + run_start as f64 * dx, x0 + i as f64 * dx);
                runs.push(Rectangle::new([(xa, y), (xb, y + dy)], color.filled()));
                run_start = i;
                run_sign = sign;
            }
        }
    }
    chart.draw_series(runs)?;
    for (label, color) in [(0.0, RGBColor(30, 80, 200)), (1.0, RGBColor(220, 90, 20))] {
        chart
            .draw_series(
                data.iter()
                    .filter(|s| s.y == label)
                    .map(|s| Circle::new((s.x[0], s.x[1]), 4, color.filled())),
            )?
            .label(format!("class {label}"))
            .legend(move |(x, y)| Circle::new((x, y), 4, color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;

    // Loss curve.
    let top = losses.iter().cloned().fold(0.0_f64, f64::max) * 1.05;
    let mut chart = ChartBuilder::on(&right)
        .caption("loss (hinge + L2) per step", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0..losses.len(), 0.0..top.max(1e-9))?;
    chart
        .configure_mesh()
        .x_desc("step")
        .y_desc("loss")
        .draw()?;
    chart.draw_series(LineSeries::new(
        losses.iter().enumerate().map(|(k, l)| (k, *l)),
        RGBColor(200, 40, 40).stroke_width(2),
    ))?;
    root.present()
        .map_err(|e| format!("cannot write {path}: {e}"))?;
    Ok(())
}
