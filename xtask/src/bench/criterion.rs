//! Reading what a benchmark run left behind: the medians criterion wrote
//! (`<criterion>/**/new/estimates.json`, its id from `benchmark.json`) and the counted figures
//! the benchmark binary wrote (`facts.tsv`, `compile-time.tsv`).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::SystemTime;

use serde_json::Value;

/// Benchmark id (`group/function/param`) -> median time in ns.
pub type Medians = BTreeMap<String, f64>;

pub fn read_medians(dir: &Path, since: Option<SystemTime>) -> Result<Medians, String> {
    let mut out = Medians::new();
    if !dir.exists() {
        return Ok(out);
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if !path.is_dir() {
                continue;
            }
            let name = entry.file_name();
            if name == "report" || name == "base" || name == "change" {
                continue;
            }
            if name == "new" {
                let file = path.join("estimates.json");
                if !file.exists() {
                    continue;
                }
                if let Some(t) = since {
                    let modified = std::fs::metadata(&file).and_then(|m| m.modified());
                    if modified.map_or(true, |m| m < t) {
                        continue;
                    }
                }
                let text = std::fs::read_to_string(&file)
                    .map_err(|e| format!("{}: {e}", file.display()))?;
                let median = serde_json::from_str::<Value>(&text)
                    .ok()
                    .and_then(|j| j["median"]["point_estimate"].as_f64())
                    .ok_or_else(|| format!("{}: no median.point_estimate", file.display()))?;
                let id = benchmark_id(dir, &d, &path)?;
                out.insert(id, median);
            } else {
                stack.push(path);
            }
        }
    }
    Ok(out)
}

/// The id criterion gave a benchmark: `benchmark.json`'s `full_id` if readable, else the
/// directory path below the criterion root.
fn benchmark_id(root: &Path, bench_dir: &Path, new_dir: &Path) -> Result<String, String> {
    if let Ok(text) = std::fs::read_to_string(new_dir.join("benchmark.json")) {
        if let Some(id) = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|j| j["full_id"].as_str().map(str::to_string))
        {
            return Ok(id);
        }
    }
    let rel = bench_dir
        .strip_prefix(root)
        .map_err(|_| format!("{} is outside {}", bench_dir.display(), root.display()))?;
    Ok(rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/"))
}

/// The counted figures the benchmark binary wrote: `name<TAB>value` per line (missing file:
/// none).
pub fn read_facts(path: &Path) -> BTreeMap<String, f64> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (k, v) = line.split_once('\t')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_criterions_estimates_and_ids() {
        // The shape of criterion 0.5's files, with fields this reader ignores.
        let root = std::env::temp_dir().join(format!("xtask-criterion-{}", std::process::id()));
        let dir = root.join("rosenbrock/reverse_f64/10/new");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("estimates.json"),
            r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0},"point_estimate":1.5,"standard_error":0.1},"median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.2,"upper_bound":1.4},"point_estimate":1.25e2,"standard_error":0.01},"slope":null,"x":[true,false,"a\"b\u00e9"]}"#,
        )
        .unwrap();
        std::fs::write(
            dir.join("benchmark.json"),
            r#"{"group_id":"rosenbrock","function_id":"reverse_f64","value_str":"10","full_id":"rosenbrock/reverse_f64/10 \u00e9","directory_name":"rosenbrock/reverse_f64/10"}"#,
        )
        .unwrap();
        let m = read_medians(&root, None).unwrap();
        assert_eq!(m.get("rosenbrock/reverse_f64/10 é"), Some(&125.0), "{m:?}");
        // A file without a median is an error naming the file, not a silent gap.
        std::fs::write(dir.join("estimates.json"), r#"{"mean": {}}"#).unwrap();
        let err = read_medians(&root, None).unwrap_err();
        assert!(
            err.contains("estimates.json: no median.point_estimate"),
            "{err}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn reads_a_criterion_tree_and_skips_stale_results() {
        let root = std::env::temp_dir().join(format!("xtask-bench-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let write = |rel: &str, median: f64, full_id: Option<&str>| {
            let dir = root.join(rel).join("new");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join("estimates.json"),
                format!(r#"{{"median":{{"point_estimate":{median}}}}}"#),
            )
            .unwrap();
            if let Some(id) = full_id {
                std::fs::write(
                    dir.join("benchmark.json"),
                    format!(r#"{{"full_id":"{id}"}}"#),
                )
                .unwrap();
            }
        };
        write(
            "dense/reverse_f64/100",
            1500.0,
            Some("dense/reverse_f64/100"),
        );
        write("moons_step/tape", 3.0e5, None);
        // criterion's own report folders are not benchmarks
        write("dense/report", 1.0, None);
        let all = read_medians(&root, None).unwrap();
        assert_eq!(all.get("dense/reverse_f64/100"), Some(&1500.0));
        assert_eq!(all.get("moons_step/tape"), Some(&3.0e5));
        assert_eq!(all.len(), 2);
        let future = SystemTime::now() + std::time::Duration::from_secs(3600);
        assert!(read_medians(&root, Some(future)).unwrap().is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
