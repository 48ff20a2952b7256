//! The workloads' list, the tables rendered from counts made up here, the counts read back,
//! the ratios and targets derived from them ([`super`]).

use super::*;

#[test]
fn every_workload_once_and_the_outlined_gradients_as_the_inlined_ones() {
    let w = workloads();
    let keys: std::collections::BTreeSet<_> = w.iter().map(|w| &w.key).collect();
    assert_eq!(keys.len(), w.len(), "no key twice");
    let by_key = |k: &str| w.iter().find(|w| w.key == k).unwrap();
    for f in FUNCTIONS {
        for n in SIZES {
            let (inlined, outlined) = (
                by_key(&format!("{f}/reverse/{n}")),
                by_key(&format!("{f}/outlined/{n}")),
            );
            assert_eq!(
                (&inlined.args, inlined.reps),
                (&outlined.args, outlined.reps)
            );
            assert_eq!((inlined.bin, outlined.bin), (Bin::Tape, Bin::Outlined));
        }
    }
    assert_eq!(
        w.iter().filter(|w| w.bin == Bin::Outlined).count(),
        FUNCTIONS.len() * SIZES.len()
    );
    // What does not use the tape runs from the reference binary, and only that.
    for w in &w {
        let tapeless = ["/plain/", "/easy_ml/", "moons/hand"]
            .iter()
            .any(|k| w.key.contains(k));
        assert_eq!(tapeless, w.bin == Bin::Reference, "{}", w.key);
    }
}

/// The instruction tables as [`render`] writes them from these counts alone.
fn rendered(facts: &[(&str, f64)]) -> String {
    let medians = super::super::criterion::Medians::new();
    let facts = facts.iter().map(|&(k, v)| (k.to_string(), v)).collect();
    let mut s = String::new();
    render(&Report::new(&medians, &facts), &mut s);
    s
}

#[test]
fn the_one_input_network_is_counted_beside_the_two_input_one() {
    let w = workloads();
    let sin: Vec<_> = w.iter().filter(|w| w.key.starts_with("sin/")).collect();
    assert_eq!(sin.len(), 2);
    for (w, inputs) in sin.iter().zip(["1", "2"]) {
        assert_eq!(w.key, format!("sin/trainer/{inputs}"));
        assert_eq!(
            (w.bin, &w.args[..], w.reps),
            (
                Bin::OneInput,
                &[inputs.to_string(), "{}".to_string()][..],
                (3, 5)
            )
        );
    }
    let s = rendered(&[
        ("instr/sin/trainer/1", 1_161_525.0),
        ("instr/sin/trainer/2", 1_178_881.0),
    ]);
    for row in [
        "| `[1, 16, 16, 1]`, one input | 1,161,525 |",
        "| `[2, 16, 16, 1]`, two inputs | 1,178,881 |",
        "| one input / two | 0.99x |",
        "| sin trainer 1 |",
    ] {
        assert!(s.contains(row), "{row} in {s}");
    }
    assert!(
        !s.contains("residual"),
        "no residual table without its count: {s}"
    );
}

#[test]
fn the_residual_network_is_counted_in_a_table_of_its_own() {
    let w = workloads();
    let residual: Vec<_> = w.iter().filter(|w| w.key.starts_with("residual")).collect();
    assert_eq!(residual.len(), 1);
    let w = residual[0];
    assert_eq!(
        (w.key.as_str(), w.bin, &w.args[..], w.reps),
        (
            "residual/tape",
            Bin::Residual,
            &["{}".to_string()][..],
            (3, 5)
        )
    );
    let s = rendered(&[("instr/residual/tape", 3_094_106.0)]);
    for row in [
        "(`examples/profile_residual`) | instructions |",
        "pairs a unit | 3,094,106 |",
        "| residual tape |",
    ] {
        assert!(s.contains(row), "{row} in {s}");
    }
}

#[test]
fn counts_read_with_their_thousands_separated() {
    assert_eq!(thousands(1_237_848.0), "1,237,848");
    assert_eq!(thousands(489.6), "490");
    assert_eq!(thousands(100_000.0), "100,000");
    assert_eq!(thousands(-1500.0), "-1,500");
}

#[test]
fn ratios_and_targets_from_counts() {
    let mut facts = BTreeMap::new();
    for n in SIZES {
        facts.insert(format!("instr/rosenbrock/plain/{n}"), 10.0 * n as f64);
        facts.insert(format!("instr/rosenbrock/reverse/{n}"), 80.0 * n as f64);
        facts.insert(format!("instr/rosenbrock/easy_ml/{n}"), 300.0 * n as f64);
        facts.insert(format!("instr/rosenbrock/outlined/{n}"), 120.0 * n as f64);
    }
    facts.insert("instr/rosenbrock/stmt/100".into(), 700.0);
    facts.insert("instr/rosenbrock/stmt/1000".into(), 7500.0);
    facts.insert("instr/dense/plain/1000".into(), 100.0);
    facts.insert("instr/dense/reverse/1000".into(), 250.0);
    facts.insert("instr/moons/hand".into(), 100.0);
    facts.insert("instr/moons/tape".into(), 700.0);
    facts.insert("instr/moons/trainer".into(), 290.0);
    let mut d = BTreeMap::new();
    derive(&facts, &mut d);
    assert_eq!(d["instr_ratio/rosenbrock/reverse/100"], 8.0);
    assert_eq!(d["instr_ratio/rosenbrock/easy_ml_over_reverse/1000"], 3.75);
    assert_eq!(d["instr_ratio/moons/tape_over_hand"], 7.0);
    assert_eq!(d["instr_ratio/rosenbrock/outlined_over_reverse/1000"], 1.5);
    let t = targets(&d);
    let met = |name: &str| t.iter().find(|t| t.name.contains(name)).unwrap().met;
    assert_eq!(met("Rosenbrock, in"), Some(true)); // 8x at both n
    assert_eq!(d["instr_ratio/rosenbrock/stmt/100"], 0.7);
    assert_eq!(met("Rosenbrock, `stmt!`, in"), Some(true)); // 0.7x, 0.75x
    assert_eq!(d["instr_ratio/rosenbrock/easy_ml_over_stmt/1000"], 40.0);
    assert_eq!(
        met("easy-ml Record / this tape, Rosenbrock, `stmt!`"),
        Some(true)
    );
    // dense counted without `stmt!`: no row for it.
    assert!(!t.iter().any(|t| t.name.contains("dense, `stmt!`")));
    assert_eq!(met("dense"), Some(false)); // 2.5x
    assert_eq!(met("easy-ml"), Some(false)); // 3.75x
    assert_eq!(met("moons loss"), Some(false)); // 7x
    assert_eq!(met("Trainer"), Some(true)); // 2.9x

    // Nothing counted, no target.
    assert!(targets(&BTreeMap::new()).is_empty());
}
