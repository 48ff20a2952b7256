use super::*;

#[test]
fn slope_of_a_power_law() {
    let pts: Vec<(f64, f64)> = [16.0, 64.0, 256.0]
        .iter()
        .map(|&n: &f64| (n, 3.0 * n))
        .collect();
    assert!((log_slope(&pts).unwrap() - 1.0).abs() < 1e-12);
    let flat: Vec<(f64, f64)> = [16.0, 64.0].iter().map(|&n| (n, 2.5)).collect();
    assert!(log_slope(&flat).unwrap().abs() < 1e-12);
}

#[test]
fn crossover_and_targets_from_medians() {
    let mut m = Medians::new();
    for n in [2usize, 16, 128, 1024] {
        let plain = n as f64;
        m.insert(format!("rosenbrock/plain_f64/{n}"), plain);
        m.insert(format!("rosenbrock/reverse_f64/{n}"), 2.5 * plain + 40.0);
        m.insert(
            format!("rosenbrock/forward_dual_f64/{n}"),
            2.0 * plain * n as f64,
        );
    }
    m.insert("moons_step/tape".into(), 300.0);
    m.insert("moons_step/hand".into(), 100.0);
    for n in [16usize, 1024] {
        m.insert(format!("rosenbrock/easy_ml_record/{n}"), 20.0 * n as f64);
    }
    for k in [1_000usize, 10_000, 100_000, 1_000_000] {
        m.insert(
            format!("tape_scaling/backward_chain_f64/{k}"),
            2.0 * k as f64,
        );
        m.insert(
            format!("tape_scaling/backward_wide_f64/{k}"),
            1.0 * k as f64,
        );
        m.insert(
            format!("tape_scaling/backward_chain_f32/{k}"),
            if k == 1_000_000 { 4.0 } else { 2.0 } * k as f64,
        );
    }
    let facts = BTreeMap::from([("bytes_per_slot/f32".to_string(), 12.0)]);
    let r = Report::new(&m, &facts);
    // reverse 45 vs forward 8 at n=2; 80 vs 512 at n=16.
    assert_eq!(r.derived["crossover/rosenbrock/forward_dual_f64"], 16.0);
    let by_name = |name: &str| {
        r.targets
            .iter()
            .find(|t| t.name.starts_with(name))
            .unwrap()
            .met
    };
    // Rosenbrock n = 100 and 1000 not both measured; dense not at all.
    assert_eq!(
        by_name("reverse gradient / plain evaluation, Rosenbrock"),
        None
    );
    assert_eq!(by_name("reverse gradient / plain evaluation, dense"), None);
    // easy-ml 320 vs reverse 80 at n = 16 (4x); 20,480 vs 2,600 at n = 1024.
    assert_eq!(r.derived["easy_ml_over_reverse/rosenbrock/16"], 4.0);
    assert_eq!(by_name("easy-ml Record"), Some(true));
    assert_eq!(by_name("tape / hand"), Some(true)); // 3x
    assert_eq!(by_name("backward ns per recorded operand"), Some(false)); // f32: 2x
    assert_eq!(r.derived["ns_per_operand/backward_wide_f64/1000"], 1.0);
    assert_eq!(by_name("bytes per tape slot, f32"), Some(true));
    assert_eq!(by_name("bytes per tape slot, f64"), None);
    // Nothing measured with `stmt!`: no row of its own.
    assert!(!r.targets.iter().any(|t| t.name.contains("stmt!")));
    // With `stmt!`: its rows beside the others.
    for n in [100usize, 1000] {
        m.insert(format!("rosenbrock/plain_f64/{n}"), n as f64);
        m.insert(format!("rosenbrock/reverse_f64/{n}"), 12.0 * n as f64);
        m.insert(format!("rosenbrock/reverse_stmt_f64/{n}"), 7.5 * n as f64);
        m.insert(format!("rosenbrock/easy_ml_record/{n}"), 40.0 * n as f64);
    }
    let r = Report::new(&m, &facts);
    let row = |name: &str| r.targets.iter().find(|t| t.name == name).unwrap().met;
    assert_eq!(
        row("reverse gradient / plain evaluation, Rosenbrock"),
        Some(false)
    );
    assert_eq!(
        row("reverse gradient / plain evaluation, Rosenbrock, `stmt!`"),
        Some(true)
    );
    assert_eq!(
        r.derived["easy_ml_over_reverse_stmt/rosenbrock/100"],
        40.0 / 7.5
    );
    assert_eq!(
        row("easy-ml Record time / this tape's time, Rosenbrock n >= 10, `stmt!`"),
        Some(true)
    );
}
