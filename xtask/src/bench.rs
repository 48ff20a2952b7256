//! `cargo xtask bench [--quick] [--no-run] [FILTER]`: runs the criterion benchmarks of
//! `autograd-bench`, reads back the medians criterion wrote (`<target>/criterion/**/new/
//! estimates.json`) and the counted figures the benchmark binary wrote (`facts.tsv`), prints the
//! comparison tables, and writes every figure to `<target>/bench-report/summary.json` with a
//! log-log SVG plot of time against n per mode beside it.
//!
//! The speed targets are reported as met or missed, never enforced: the exit code says only
//! whether the benchmarks ran.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::SystemTime;

use crate::project_root;

mod compile_time;

const HELP: &str = "\
cargo xtask bench [--quick] [--wall-clock] [--no-run] [FILTER]
cargo xtask bench --compile-time [--ops 1000,3000]

Runs the autograd-bench criterion benchmarks, then prints medians and ratios and writes
<target>/bench-report/summary.json and <target>/bench-report/time-vs-n.svg.

Options:
  --quick       short measurements and fewer sizes (about two minutes)
  --wall-clock  time single-threaded benchmarks by the wall clock (default on Linux: the
                thread's CPU time, robust on a shared machine; rayon is always wall clock)
  --no-run      only report from the results already in <target>/criterion
  FILTER        a criterion filter (regex over benchmark ids), e.g. 'moons'; a filtered run
                does not rewrite autograd-bench/PERFORMANCE.md
  --compile-time  instead: time the release build of generated straight-line functions of
                --ops operations (default 1000,3000) for Var<f64> and Dual<f64>
";

/// Modes of the per-n comparison, in table order: (benchmark id, column title).
const MODES: [(&str, &str); 10] = [
    ("hand_f64", "hand"),
    ("reverse_f64", "reverse"),
    ("reverse_f32", "reverse f32"),
    ("record_f64", "record only"),
    ("forward_dual_f64", "fwd Dual"),
    ("forward_dual8_f64", "fwd DualVec8"),
    ("finite_diff_f64", "central FD"),
    ("rc_graph", "Rc graph"),
    ("easy_ml_record", "easy-ml Record"),
    ("num_dual_f64", "num-dual Dual64"),
];

const FUNCTIONS: [&str; 2] = ["rosenbrock", "dense"];

/// The other crates' modes: in their own table, not the main one.
const REFERENCE_MODES: [&str; 2] = ["easy_ml_record", "num_dual_f64"];

/// Runs the task with its arguments.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let mut quick = false;
    let mut no_run = false;
    let mut wall_clock = false;
    let mut filter: Option<String> = None;
    let mut compile = false;
    let mut ops = vec![1000, 3000];
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--compile-time" => compile = true,
            "--ops" => {
                ops = args
                    .next()
                    .and_then(|v| v.split(',').map(|n| n.trim().parse().ok()).collect())
                    .ok_or("--ops takes a comma-separated list of operation counts")?;
            }
            "--quick" => quick = true,
            "--no-run" => no_run = true,
            "--wall-clock" => wall_clock = true,
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(ExitCode::SUCCESS);
            }
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`\n\n{HELP}")),
            s if filter.is_none() => filter = Some(s.to_string()),
            s => return Err(format!("only one filter is accepted (got a second: `{s}`)")),
        }
    }
    let target = target_dir();
    if compile {
        return compile_time::run(&target, &ops);
    }
    let criterion_dir = target.join("criterion");
    let report_dir = target.join("bench-report");
    std::fs::create_dir_all(&report_dir)
        .map_err(|e| format!("cannot create {}: {e}", report_dir.display()))?;

    let started = SystemTime::now();
    let load_before = load_average();
    if !no_run {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(project_root())
            .args(["bench", "-p", "autograd-bench", "--bench", "autograd", "--"])
            .env("CRITERION_HOME", &criterion_dir)
            .env("AUTOGRAD_BENCH_REPORT", &report_dir)
            .env("AUTOGRAD_BENCH_QUICK", if quick { "1" } else { "0" })
            .env(
                "AUTOGRAD_BENCH_CLOCK",
                if wall_clock { "wall" } else { "cpu" },
            );
        if let Some(f) = &filter {
            cmd.arg(f);
        }
        eprintln!(
            "running: cargo bench -p autograd-bench --bench autograd{}",
            if quick { " (quick)" } else { "" }
        );
        let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            eprintln!("error: the benchmarks failed ({status})");
            return Ok(ExitCode::from(1));
        }
    }

    // Only this run's results, unless reporting from what is there.
    let since = if no_run { None } else { Some(started) };
    let medians = read_medians(&criterion_dir, since)?;
    if medians.is_empty() {
        return Err(format!(
            "no criterion results in {} (run without --no-run first)",
            criterion_dir.display()
        ));
    }
    let mut facts = read_facts(&report_dir.join("facts.tsv"));
    // The last `--compile-time` measurement, if any.
    facts.extend(read_facts(&report_dir.join("compile-time.tsv")));
    let machine = Machine {
        run: if no_run {
            "reported from existing results".to_string()
        } else {
            format!(
                "{} run, {}; load average {} before, {} after",
                if quick { "quick" } else { "full" },
                if wall_clock || !cfg!(target_os = "linux") {
                    "wall clock"
                } else {
                    "thread CPU time (rayon: wall clock)"
                },
                load_before,
                load_average()
            )
        },
        ..machine()
    };
    let report = Report::new(&medians, &facts);

    let rendered = report.render(&machine);
    println!("{rendered}");
    if filter.is_none() {
        let command = match (quick, no_run) {
            (_, true) => "cargo xtask bench --no-run",
            (true, false) => "cargo xtask bench --quick",
            (false, false) => "cargo xtask bench",
        };
        let perf = project_root().join("autograd-bench/PERFORMANCE.md");
        let old = std::fs::read_to_string(&perf).unwrap_or_default();
        std::fs::write(
            &perf,
            with_generated_section(&old, &generated(command, &rendered)),
        )
        .map_err(|e| format!("cannot write {}: {e}", perf.display()))?;
        println!("wrote {}", perf.display());
    }
    let summary = report_dir.join("summary.json");
    std::fs::write(&summary, report.json(&machine, &medians, &facts))
        .map_err(|e| format!("cannot write {}: {e}", summary.display()))?;
    let svg = report_dir.join("time-vs-n.svg");
    std::fs::write(&svg, plot(&medians))
        .map_err(|e| format!("cannot write {}: {e}", svg.display()))?;
    println!("wrote {} and {}", summary.display(), svg.display());
    Ok(ExitCode::SUCCESS)
}

const BEGIN: &str = "<!-- generated by `cargo xtask bench`: begin -->";
const END: &str = "<!-- generated by `cargo xtask bench`: end -->";

/// The generated section of PERFORMANCE.md: which command, commit and date, then the report.
fn generated(command: &str, rendered: &str) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(project_root())
            .args(args)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    };
    let commit = git(&["rev-parse", "--short", "HEAD"]);
    let dirty = if git(&["status", "--porcelain", "--untracked-files=no"]).is_empty() {
        ""
    } else {
        " with uncommitted changes"
    };
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    format!(
        "{BEGIN}\n\nFigures from one run of `{command}` at commit `{commit}`{dirty}, {date} \
         (criterion medians; written by the command itself).\n{rendered}\n{END}"
    )
}

/// `old` with its generated section replaced by `section`, or with `section` inserted after
/// the first heading if it has none.
fn with_generated_section(old: &str, section: &str) -> String {
    if let (Some(b), Some(e)) = (old.find(BEGIN), old.find(END)) {
        if b < e {
            return format!("{}{section}{}", &old[..b], &old[e + END.len()..]);
        }
    }
    match old.find('\n') {
        Some(i) if old.starts_with('#') => {
            format!("{}\n\n{section}\n{}", &old[..i], &old[i + 1..])
        }
        _ => format!("{section}\n\n{old}"),
    }
}

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                project_root().join(dir)
            }
        }
        None => project_root().join("target"),
    }
}

// ---------------------------------------------------------------------------------------------
// Reading criterion's output

/// Benchmark id (`group/function/param`) -> median time in ns.
type Medians = BTreeMap<String, f64>;

fn read_medians(dir: &Path, since: Option<SystemTime>) -> Result<Medians, String> {
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
                let median = Json::parse(&text)
                    .ok()
                    .and_then(|j| j.get("median")?.get("point_estimate")?.as_f64())
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
        if let Some(id) = Json::parse(&text)
            .ok()
            .and_then(|j| j.get("full_id")?.as_str().map(str::to_string))
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

fn read_facts(path: &Path) -> BTreeMap<String, f64> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (k, v) = line.split_once('\t')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// A minimal JSON reader: enough for criterion's files.
#[derive(Debug, Clone)]
enum Json {
    /// `null`, `true`, `false` and arrays: parsed, contents not needed.
    Other,
    Num(f64),
    Str(String),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn parse(text: &str) -> Result<Json, String> {
        let bytes = text.as_bytes();
        let mut pos = 0;
        let value = Self::value(bytes, &mut pos)?;
        Self::ws(bytes, &mut pos);
        if pos != bytes.len() {
            return Err(format!("trailing characters at byte {pos}"));
        }
        Ok(value)
    }

    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Num(x) => Some(*x),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    fn ws(b: &[u8], pos: &mut usize) {
        while *pos < b.len() && b[*pos].is_ascii_whitespace() {
            *pos += 1;
        }
    }

    fn value(b: &[u8], pos: &mut usize) -> Result<Json, String> {
        Self::ws(b, pos);
        let err = |what: &str, at: usize| Err(format!("expected {what} at byte {at}"));
        match b.get(*pos) {
            None => err("a value", *pos),
            Some(b'{') => {
                *pos += 1;
                let mut fields = Vec::new();
                Self::ws(b, pos);
                if b.get(*pos) == Some(&b'}') {
                    *pos += 1;
                    return Ok(Json::Obj(fields));
                }
                loop {
                    Self::ws(b, pos);
                    let Json::Str(key) = Self::value(b, pos)? else {
                        return err("a key", *pos);
                    };
                    Self::ws(b, pos);
                    if b.get(*pos) != Some(&b':') {
                        return err("':'", *pos);
                    }
                    *pos += 1;
                    fields.push((key, Self::value(b, pos)?));
                    Self::ws(b, pos);
                    match b.get(*pos) {
                        Some(b',') => *pos += 1,
                        Some(b'}') => {
                            *pos += 1;
                            return Ok(Json::Obj(fields));
                        }
                        _ => return err("',' or '}'", *pos),
                    }
                }
            }
            Some(b'[') => {
                *pos += 1;
                Self::ws(b, pos);
                if b.get(*pos) == Some(&b']') {
                    *pos += 1;
                    return Ok(Json::Other);
                }
                loop {
                    Self::value(b, pos)?;
                    Self::ws(b, pos);
                    match b.get(*pos) {
                        Some(b',') => *pos += 1,
                        Some(b']') => {
                            *pos += 1;
                            return Ok(Json::Other);
                        }
                        _ => return err("',' or ']'", *pos),
                    }
                }
            }
            Some(b'"') => {
                *pos += 1;
                let mut s = String::new();
                loop {
                    match b.get(*pos) {
                        None => return err("'\"'", *pos),
                        Some(b'"') => {
                            *pos += 1;
                            return Ok(Json::Str(s));
                        }
                        Some(b'\\') => {
                            let c = match b.get(*pos + 1) {
                                Some(b'n') => '\n',
                                Some(b't') => '\t',
                                Some(b'r') => '\r',
                                Some(b'b') => '\u{8}',
                                Some(b'f') => '\u{c}',
                                Some(b'u') => {
                                    let hex = b.get(*pos + 2..*pos + 6).ok_or("bad escape")?;
                                    let code = u32::from_str_radix(
                                        std::str::from_utf8(hex).map_err(|e| e.to_string())?,
                                        16,
                                    )
                                    .map_err(|e| e.to_string())?;
                                    *pos += 4;
                                    char::from_u32(code).unwrap_or('\u{fffd}')
                                }
                                Some(&c) => c as char,
                                None => return err("an escape", *pos),
                            };
                            s.push(c);
                            *pos += 2;
                        }
                        Some(_) => {
                            // Copy one UTF-8 character.
                            let rest =
                                std::str::from_utf8(&b[*pos..]).map_err(|e| e.to_string())?;
                            let c = rest.chars().next().ok_or("truncated string")?;
                            s.push(c);
                            *pos += c.len_utf8();
                        }
                    }
                }
            }
            Some(b't') if b[*pos..].starts_with(b"true") => {
                *pos += 4;
                Ok(Json::Other)
            }
            Some(b'f') if b[*pos..].starts_with(b"false") => {
                *pos += 5;
                Ok(Json::Other)
            }
            Some(b'n') if b[*pos..].starts_with(b"null") => {
                *pos += 4;
                Ok(Json::Other)
            }
            Some(_) => {
                let start = *pos;
                while *pos < b.len()
                    && matches!(b[*pos], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    *pos += 1;
                }
                std::str::from_utf8(&b[start..*pos])
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .map(Json::Num)
                    .ok_or_else(|| format!("expected a value at byte {start}"))
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The machine

struct Machine {
    cpus: usize,
    cpu_model: String,
    rustc: String,
    /// How the figures were obtained (quick or full, which clock, machine load).
    run: String,
}

/// The 1-, 5- and 15-minute load averages (Linux), to judge how shared the machine was.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_string())
}

fn machine() -> Machine {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let lscpu = Command::new("lscpu")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let from_lscpu = lscpu
        .lines()
        .find(|l| l.trim_start().starts_with("Model name:"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, m)| m.trim().to_string());
    let cpu_model = from_lscpu.or_else(|| {
        std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
    });
    let cpu_model = cpu_model.unwrap_or_else(|| "unknown".to_string());
    let rustc = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    Machine {
        cpus,
        cpu_model,
        rustc,
        run: String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// The figures

/// A speed or size goal and how the run measured against it.
struct Target {
    name: &'static str,
    goal: String,
    measured: String,
    met: Option<bool>,
}

struct Report<'a> {
    medians: &'a Medians,
    facts: &'a BTreeMap<String, f64>,
    /// Figures derived from the medians, by name (also written to the JSON).
    derived: BTreeMap<String, f64>,
    targets: Vec<Target>,
}

fn median_of(m: &Medians, function: &str, mode: &str, n: usize) -> Option<f64> {
    m.get(&format!("{function}/{mode}/{n}")).copied()
}

/// The n each function was measured at (from its plain evaluations).
fn sizes_of(m: &Medians, function: &str) -> Vec<usize> {
    let prefix = format!("{function}/plain_f64/");
    let mut ns: Vec<usize> = m
        .keys()
        .filter_map(|k| k.strip_prefix(&prefix)?.parse().ok())
        .collect();
    ns.sort_unstable();
    ns
}

/// Least-squares slope of `ln y` against `ln x`.
fn log_slope(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x.ln(), b + y.ln()));
    let (mx, my) = (sx / n, sy / n);
    let (mut num, mut den) = (0.0, 0.0);
    for (x, y) in points {
        num += (x.ln() - mx) * (y.ln() - my);
        den += (x.ln() - mx).powi(2);
    }
    (den > 0.0).then(|| num / den)
}

impl<'a> Report<'a> {
    fn new(medians: &'a Medians, facts: &'a BTreeMap<String, f64>) -> Self {
        let mut r = Report {
            medians,
            facts,
            derived: BTreeMap::new(),
            targets: Vec::new(),
        };
        r.derive();
        r
    }

    fn ratio(&self, function: &str, mode: &str, n: usize) -> Option<f64> {
        let unit = if mode.ends_with("_f32") {
            "plain_f32"
        } else {
            "plain_f64"
        };
        Some(
            median_of(self.medians, function, mode, n)?
                / median_of(self.medians, function, unit, n)?,
        )
    }

    fn derive(&mut self) {
        let m = self.medians;
        let mut d = BTreeMap::new();
        // Cheap-gradient ratios and reverse ns per node.
        for f in FUNCTIONS {
            for n in sizes_of(m, f) {
                for (mode, _) in MODES {
                    if let Some(r) = self.ratio(f, mode, n) {
                        d.insert(format!("ratio/{f}/{mode}/{n}"), r);
                    }
                }
                if let (Some(t), Some(len)) = (
                    median_of(m, f, "reverse_f64", n),
                    self.facts.get(&format!("slots/{f}/{n}")),
                ) {
                    d.insert(format!("ns_per_slot/{f}/reverse_f64/{n}"), t / len);
                }
                if let (Some(ours), Some(easy)) = (
                    median_of(m, f, "reverse_f64", n),
                    median_of(m, f, "easy_ml_record", n),
                ) {
                    d.insert(format!("easy_ml_over_reverse/{f}/{n}"), easy / ours);
                }
            }
        }
        // Moons loss gradient per mode, relative to one plain loss evaluation.
        if let Some(plain) = m.get("moons/plain_f64/337") {
            for (k, v) in m.range("moons/".to_string().."moons0".to_string()) {
                if let Some(mode) = k
                    .strip_prefix("moons/")
                    .and_then(|s| s.strip_suffix("/337"))
                {
                    if mode != "plain_f64" {
                        d.insert(format!("ratio/moons/{mode}/337"), v / plain);
                    }
                }
            }
        }
        // Training step comparisons.
        let step = |k: &str| m.get(&format!("moons_step/{k}")).copied();
        if let (Some(tape), Some(hand)) = (step("tape"), step("hand")) {
            d.insert("moons_step/tape_over_hand".into(), tape / hand);
        }
        if let (Some(nn), Some(hand)) = (step("nn_trainer"), step("hand")) {
            d.insert("moons_step/nn_over_hand".into(), nn / hand);
        }
        if let (Some(tape), Some(rc)) = (step("tape"), step("rc_graph")) {
            d.insert("moons_step/rc_graph_over_tape".into(), rc / tape);
        }
        // Tape scaling: ns per recorded operand (the operands counted on the tape, else the
        // benchmark's nominal count).
        for (k, v) in m.range("tape_scaling/".to_string().."tape_scaling0".to_string()) {
            let Some(rest) = k.strip_prefix("tape_scaling/") else {
                continue;
            };
            let Some((kind, operands)) = rest.rsplit_once('/') else {
                continue;
            };
            let shape = if kind.contains("wide") {
                "wide_sum"
            } else {
                "chain"
            };
            let count = self
                .facts
                .get(&format!("operands/{shape}/{operands}"))
                .copied()
                .or_else(|| operands.parse().ok());
            if let Some(count) = count {
                d.insert(format!("ns_per_operand/{kind}/{operands}"), v / count);
            }
        }
        // Rayon.
        let batch = |k: &str| {
            m.iter()
                .find(|(id, _)| id.starts_with(&format!("gradcheck_batch/{k}/")))
                .map(|(_, v)| *v)
        };
        if let (Some(seq), Some(par)) = (batch("sequential"), batch("rayon")) {
            d.insert("rayon/speedup".into(), seq / par);
        }
        // Crossover: the smallest n from which reverse beats forward for good.
        for f in FUNCTIONS {
            for fwd in ["forward_dual_f64", "forward_dual8_f64"] {
                let ns: Vec<usize> = sizes_of(m, f)
                    .into_iter()
                    .filter(|&n| {
                        median_of(m, f, fwd, n).is_some()
                            && median_of(m, f, "reverse_f64", n).is_some()
                    })
                    .collect();
                if ns.is_empty() {
                    continue;
                }
                let reverse_wins =
                    |n: usize| median_of(m, f, "reverse_f64", n) < median_of(m, f, fwd, n);
                let from = ns
                    .iter()
                    .rposition(|&n| !reverse_wins(n))
                    .map_or(Some(ns[0]), |i| ns.get(i + 1).copied());
                // 0 means forward won at every measured n.
                d.insert(format!("crossover/{f}/{fwd}"), from.unwrap_or(0) as f64);
            }
        }
        // Growth of cost ratios with n (log-log slope over n >= 16).
        for f in FUNCTIONS {
            for mode in [
                "reverse_f64",
                "forward_dual_f64",
                "forward_dual8_f64",
                "finite_diff_f64",
            ] {
                let pts: Vec<(f64, f64)> = sizes_of(m, f)
                    .into_iter()
                    .filter(|&n| n >= 16)
                    .filter_map(|n| Some((n as f64, self.ratio(f, mode, n)?)))
                    .collect();
                if let Some(s) = log_slope(&pts) {
                    d.insert(format!("ratio_slope/{f}/{mode}"), s);
                }
            }
        }
        self.derived = d;
        self.targets = self.evaluate_targets();
    }

    fn evaluate_targets(&self) -> Vec<Target> {
        let d = &self.derived;
        let mut t = Vec::new();
        // Issue 12's targets.
        // 1. reverse / plain <= 8x on Rosenbrock n = 100 and 1000; 2. <= 2x on dense n = 1000.
        for (f, ns, limit) in [
            ("rosenbrock", &[100usize, 1000][..], 8.0),
            ("dense", &[1000][..], 2.0),
        ] {
            let got: Vec<(usize, f64)> = ns
                .iter()
                .filter_map(|&n| Some((n, *d.get(&format!("ratio/{f}/reverse_f64/{n}"))?)))
                .collect();
            let at: Vec<String> = ns.iter().map(|n| format!("n = {n}")).collect();
            t.push(Target {
                name: if f == "rosenbrock" {
                    "reverse gradient / plain evaluation, Rosenbrock"
                } else {
                    "reverse gradient / plain evaluation, dense"
                },
                goal: format!("<= {limit}x at {}", at.join(" and ")),
                measured: if got.is_empty() {
                    "not measured".into()
                } else {
                    got.iter()
                        .map(|(n, r)| format!("{} at n = {n}", fmt_ratio(*r)))
                        .collect::<Vec<_>>()
                        .join(", ")
                },
                met: (got.len() == ns.len()).then(|| got.iter().all(|(_, r)| *r <= limit)),
            });
        }
        // 3. at least 4x faster than easy-ml's Record on Rosenbrock, n >= 10.
        let vs: Vec<(usize, f64)> = sizes_of(self.medians, "rosenbrock")
            .into_iter()
            .filter(|&n| n >= 10)
            .filter_map(|n| Some((n, *d.get(&format!("easy_ml_over_reverse/rosenbrock/{n}"))?)))
            .collect();
        t.push(Target {
            name: "easy-ml Record time / this tape's time, Rosenbrock n >= 10",
            goal: ">= 4x at every n".into(),
            measured: if vs.is_empty() {
                "not measured".into()
            } else {
                vs.iter()
                    .map(|(n, r)| format!("{} at n = {n}", fmt_ratio(*r)))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            met: (!vs.is_empty()).then(|| vs.iter().all(|(_, r)| *r >= 4.0)),
        });
        // 4. the moons training step within 3x of hand-written backprop.
        let th = d.get("moons_step/tape_over_hand").copied();
        t.push(Target {
            name: "tape / hand-written backprop (moons training step)",
            goal: "<= 3x".into(),
            measured: th.map_or("not measured".into(), fmt_ratio),
            met: th.map(|r| r <= 3.0),
        });
        // 5. backward ns per recorded operand flat from 10^3 to 10^6 (largest over smallest of
        // the four sizes <= 1.5, for every shape).
        let mut spreads = Vec::new();
        for kind in [
            "backward_chain_f64",
            "backward_wide_f64",
            "backward_chain_f32",
        ] {
            let v: Vec<f64> = [1_000, 10_000, 100_000, 1_000_000]
                .iter()
                .filter_map(|k| d.get(&format!("ns_per_operand/{kind}/{k}")).copied())
                .collect();
            if v.len() == 4 {
                let (lo, hi) = v
                    .iter()
                    .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(*x), b.max(*x)));
                spreads.push((kind, lo, hi));
            }
        }
        t.push(Target {
            name: "backward ns per recorded operand, 10^3 to 10^6 operands",
            goal: "flat (max / min <= 1.5)".into(),
            measured: if spreads.is_empty() {
                "not measured".into()
            } else {
                spreads
                    .iter()
                    .map(|(k, lo, hi)| {
                        format!(
                            "{}: {lo:.2}-{hi:.2} ns ({})",
                            k.trim_start_matches("backward_"),
                            fmt_ratio(hi / lo)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            },
            met: (spreads.len() == 3).then(|| spreads.iter().all(|(_, lo, hi)| hi / lo <= 1.5)),
        });
        // Other checks. Forward grows linearly in n, reverse stays flat.
        let mut slopes = Vec::new();
        let mut ok = None::<bool>;
        for f in FUNCTIONS {
            let fwd = d.get(&format!("ratio_slope/{f}/forward_dual_f64"));
            let rev = d.get(&format!("ratio_slope/{f}/reverse_f64"));
            if let Some(s) = fwd {
                slopes.push(format!("{f}: fwd {s:.2}"));
                ok = Some(ok.unwrap_or(true) && (0.8..=1.2).contains(s));
            }
            if let Some(s) = rev {
                slopes.push(format!("{f}: rev {s:.2}"));
                ok = Some(ok.unwrap_or(true) && s.abs() <= 0.2);
            }
        }
        t.push(Target {
            name: "cost/plain vs n (log-log slope, n >= 16): forward linear, reverse flat",
            goal: "fwd 0.8..1.2, rev |s| <= 0.2".into(),
            measured: if slopes.is_empty() {
                "not measured".into()
            } else {
                slopes.join("; ")
            },
            met: ok,
        });
        // Rayon.
        let sp = d.get("rayon/speedup").copied();
        let threads = self.facts.get("rayon_threads").copied().unwrap_or(0.0);
        t.push(Target {
            name: "rayon speedup, batched gradient checks",
            goal: ">= 1.8x on 2 cores".into(),
            measured: sp.map_or("not measured".into(), |s| {
                format!("{s:.2}x ({threads} threads)")
            }),
            met: sp.map(|s| s >= 1.8),
        });
        // Bytes per slot.
        for (ty, limit) in [("f32", 12.0), ("f64", 24.0)] {
            let b = self.facts.get(&format!("bytes_per_slot/{ty}")).copied();
            t.push(Target {
                name: if ty == "f32" {
                    "bytes per tape slot, f32"
                } else {
                    "bytes per tape slot, f64"
                },
                goal: format!("<= {limit}"),
                measured: b.map_or("not measured".into(), |b| format!("{b}")),
                met: b.map(|b| b <= limit),
            });
        }
        t
    }

    fn render(&self, machine: &Machine) -> String {
        let m = self.medians;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "\nautograd-bench: criterion medians. Machine: {} CPUs (`nproc`), model `{}` (`lscpu`), {}.\nRun: {}.\n",
            machine.cpus, machine.cpu_model, machine.rustc, machine.run
        );
        let _ = writeln!(
            s,
            "Cost of one full gradient / cost of one plain evaluation (same function, same n; \
             reverse f32 is divided by plain f32). `record only` = recording without backward.\n"
        );
        let present: Vec<(&str, &str)> = MODES
            .iter()
            .copied()
            .filter(|(mode, _)| !REFERENCE_MODES.contains(mode))
            .filter(|(mode, _)| m.keys().any(|k| k.split('/').nth(1) == Some(*mode)))
            .collect();
        let _ = write!(s, "| function | n | plain f64 |");
        for (_, title) in &present {
            let _ = write!(s, " {title} |");
        }
        let _ = write!(s, " reverse ns/slot |\n|---|---:|---:|");
        for _ in &present {
            let _ = write!(s, "---:|");
        }
        s.push_str("---:|\n");
        for f in FUNCTIONS {
            for n in sizes_of(m, f) {
                let plain = median_of(m, f, "plain_f64", n).unwrap_or(f64::NAN);
                let _ = write!(s, "| {f} | {n} | {} |", fmt_ns(plain));
                for (mode, _) in &present {
                    match self.ratio(f, mode, n) {
                        Some(r) => {
                            let _ = write!(s, " {} |", fmt_ratio(r));
                        }
                        None => s.push_str(" – |"),
                    }
                }
                let npn = self
                    .derived
                    .get(&format!("ns_per_slot/{f}/reverse_f64/{n}"));
                let _ = writeln!(s, " {} |", npn.map_or("–".into(), |v| format!("{v:.2}")));
            }
        }
        if let Some(plain) = m.get("moons/plain_f64/337") {
            let _ = write!(s, "| moons MLP loss | 337 | {} |", fmt_ns(*plain));
            for (mode, _) in &present {
                match self.derived.get(&format!("ratio/moons/{mode}/337")) {
                    Some(r) => {
                        let _ = write!(s, " {} |", fmt_ratio(*r));
                    }
                    None => s.push_str(" – |"),
                }
            }
            let npn = m
                .get("moons/reverse_f64/337")
                .zip(self.facts.get("slots/moons"))
                .map(|(t, l)| t / l);
            let _ = writeln!(s, " {} |", npn.map_or("–".into(), |v| format!("{v:.2}")));
        }

        // The reference crates, same run, same functions and points.
        let refs: Vec<(&str, usize)> = FUNCTIONS
            .iter()
            .flat_map(|f| sizes_of(m, f).into_iter().map(move |n| (*f, n)))
            .filter(|(f, n)| median_of(m, f, "easy_ml_record", *n).is_some())
            .collect();
        if !refs.is_empty() {
            let _ = writeln!(
                s,
                "\nThe reference crates in the same run (cost / plain f64 evaluation; easy-ml's \
                 reverse-mode `Record`, num-dual's forward-mode `Dual64`, n passes):\n\n\
                 | function | n | plain f64 | this reverse | easy-ml Record | easy-ml / this | \
                 this fwd Dual | num-dual Dual64 |\n|---|---:|---:|---:|---:|---:|---:|---:|"
            );
            for (f, n) in refs {
                let cell = |mode: &str| self.ratio(f, mode, n).map_or("–".into(), fmt_ratio);
                let vs = self
                    .derived
                    .get(&format!("easy_ml_over_reverse/{f}/{n}"))
                    .map_or("–".into(), |r| fmt_ratio(*r));
                let _ = writeln!(
                    s,
                    "| {f} | {n} | {} | {} | {} | {vs} | {} | {} |",
                    fmt_ns(median_of(m, f, "plain_f64", n).unwrap_or(f64::NAN)),
                    cell("reverse_f64"),
                    cell("easy_ml_record"),
                    cell("forward_dual_f64"),
                    cell("num_dual_f64"),
                );
            }
        }

        // Key figures.
        let _ = writeln!(s, "\n| figure | value |\n|---|---:|");
        let mut row = |k: String, v: String| {
            let _ = writeln!(s, "| {k} | {v} |");
        };
        for f in FUNCTIONS {
            for fwd in ["forward_dual_f64", "forward_dual8_f64"] {
                if let Some(c) = self.derived.get(&format!("crossover/{f}/{fwd}")) {
                    let label = if fwd.contains("dual8") {
                        "DualVec8"
                    } else {
                        "Dual"
                    };
                    let v = if *c == 0.0 {
                        "forward wins at every n measured".into()
                    } else {
                        format!("reverse wins from n = {c}")
                    };
                    row(format!("crossover {f}: reverse vs forward {label}"), v);
                }
            }
        }
        for (k, v) in m.range("moons_step/".to_string().."moons_step0".to_string()) {
            row(
                format!("training step {}", k.trim_start_matches("moons_step/")),
                fmt_ns(*v),
            );
        }
        for (k, label) in [
            (
                "moons_step/tape_over_hand",
                "training step: tape / hand-written",
            ),
            (
                "moons_step/nn_over_hand",
                "training step: autograd-nn Trainer / hand-written",
            ),
            (
                "moons_step/rc_graph_over_tape",
                "training step: Rc graph / tape",
            ),
        ] {
            if let Some(v) = self.derived.get(k) {
                row(label.into(), fmt_ratio(*v));
            }
        }
        for f in FUNCTIONS {
            let n = sizes_of(m, f).into_iter().max().unwrap_or(0);
            if let (Some(rev), Some(hand)) = (
                median_of(m, f, "reverse_f64", n),
                median_of(m, f, "hand_f64", n),
            ) {
                row(
                    format!("{f} n={n}: tape / hand-written gradient"),
                    fmt_ratio(rev / hand),
                );
            }
            if let (Some(rev), Some(rc)) = (
                median_of(m, f, "reverse_f64", n),
                median_of(m, f, "rc_graph", n),
            ) {
                row(format!("{f} n={n}: Rc graph / tape"), fmt_ratio(rc / rev));
            }
        }
        for (k, v) in self
            .derived
            .range("ns_per_operand/".to_string().."ns_per_operand0".to_string())
        {
            let rest = k.trim_start_matches("ns_per_operand/");
            row(
                format!(
                    "ns per recorded operand, {} operands",
                    rest.replace('/', " @ ")
                ),
                format!("{v:.2}"),
            );
        }
        if let Some(sp) = self.derived.get("rayon/speedup") {
            let threads = self.facts.get("rayon_threads").copied().unwrap_or(0.0);
            row(
                format!("rayon speedup, 64 gradient checks ({threads} threads)"),
                fmt_ratio(*sp),
            );
        }
        for (k, v) in self.facts {
            if k.starts_with("bytes_per")
                || k.starts_with("tape_bytes")
                || k.starts_with("rc_graph")
            {
                row(k.replace('_', " "), format!("{v}"));
            }
        }
        let lens: Vec<String> = self
            .facts
            .iter()
            .filter(|(k, _)| k.starts_with("slots/"))
            .map(|(k, v)| format!("{} {v}", k.trim_start_matches("slots/")))
            .collect();
        if !lens.is_empty() {
            row("slots recorded per benchmark".into(), lens.join(", "));
        }
        let compile: Vec<String> = self
            .facts
            .iter()
            .filter(|(k, _)| k.starts_with("compile_s/"))
            .map(|(k, v)| format!("{} {v:.1} s", k.trim_start_matches("compile_s/")))
            .collect();
        if !compile.is_empty() {
            row(
                "release build of a generated function (`--compile-time`), mode/operations".into(),
                compile.join(", "),
            );
        }

        let _ = writeln!(
            s,
            "\n| target | goal | measured | status |\n|---|---|---|---|"
        );
        for t in &self.targets {
            let status = match t.met {
                Some(true) => "met",
                Some(false) => "MISSED",
                None => "not measured",
            };
            let _ = writeln!(s, "| {} | {} | {} | {status} |", t.name, t.goal, t.measured);
        }
        s
    }

    fn json(&self, machine: &Machine, medians: &Medians, facts: &BTreeMap<String, f64>) -> String {
        let mut s = String::from("{\n");
        let _ = writeln!(
            s,
            "  \"machine\": {{\"cpus\": {}, \"cpu_model\": {}, \"rustc\": {}, \"run\": {}}},",
            machine.cpus,
            crate::json::string(&machine.cpu_model),
            crate::json::string(&machine.rustc),
            crate::json::string(&machine.run)
        );
        let map = |s: &mut String, name: &str, m: &BTreeMap<String, f64>, last: bool| {
            let _ = writeln!(s, "  {}: {{", crate::json::string(name));
            let n = m.len();
            for (i, (k, v)) in m.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "    {}: {}{}",
                    crate::json::string(k),
                    crate::json::number(*v),
                    if i + 1 < n { "," } else { "" }
                );
            }
            let _ = writeln!(s, "  }}{}", if last { "" } else { "," });
        };
        map(&mut s, "median_ns", medians, false);
        map(&mut s, "derived", &self.derived, false);
        map(&mut s, "counted", facts, false);
        s.push_str("  \"targets\": [\n");
        for (i, t) in self.targets.iter().enumerate() {
            let _ = writeln!(
                s,
                "    {{\"name\": {}, \"goal\": {}, \"measured\": {}, \"met\": {}}}{}",
                crate::json::string(t.name),
                crate::json::string(&t.goal),
                crate::json::string(&t.measured),
                t.met.map_or("null".to_string(), |b| b.to_string()),
                if i + 1 < self.targets.len() { "," } else { "" }
            );
        }
        s.push_str("  ]\n}\n");
        s
    }
}

fn fmt_ns(ns: f64) -> String {
    if !ns.is_finite() {
        "–".into()
    } else if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// `10^e` nanoseconds as an axis label: 1 ns, 10 ns, 100 ns, 1 µs, ...
fn decade_label(e: i32) -> String {
    let units = ["ns", "µs", "ms", "s"];
    let unit = (e.max(0) / 3).min(3);
    let mantissa = 10f64.powi(e - 3 * unit);
    format!("{mantissa} {}", units[unit as usize])
}

fn fmt_ratio(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.2}x")
    } else if r < 1000.0 {
        format!("{r:.1}x")
    } else {
        format!("{r:.0}x")
    }
}

// ---------------------------------------------------------------------------------------------
// The plot

/// Log-log plot of median time against n, one panel per function, one line per mode.
fn plot(m: &Medians) -> String {
    const W: f64 = 520.0;
    const H: f64 = 420.0;
    const PAD_L: f64 = 70.0;
    const PAD_R: f64 = 20.0;
    const PAD_T: f64 = 40.0;
    const PAD_B: f64 = 50.0;
    const LEGEND_H: f64 = 70.0;
    const COLORS: [&str; 9] = [
        "#000000", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
        "#17becf",
    ];
    let modes: Vec<(&str, &str)> = std::iter::once(("plain_f64", "plain f64"))
        .chain(MODES.iter().copied())
        .collect();
    let mut s = String::new();
    let total_w = W * FUNCTIONS.len() as f64;
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{total_w}\" height=\"{}\" \
         font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
        H + LEGEND_H
    );
    for (panel, f) in FUNCTIONS.iter().enumerate() {
        let series: Vec<(usize, Vec<(f64, f64)>)> = modes
            .iter()
            .enumerate()
            .map(|(i, (mode, _))| {
                let pts = sizes_of(m, f)
                    .into_iter()
                    .filter_map(|n| Some((n as f64, median_of(m, f, mode, n)?)))
                    .collect();
                (i, pts)
            })
            .filter(|(_, p): &(usize, Vec<(f64, f64)>)| !p.is_empty())
            .collect();
        let all = series.iter().flat_map(|(_, p)| p.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for (x, y) in all {
            x0 = x0.min(*x);
            x1 = x1.max(*x);
            y0 = y0.min(*y);
            y1 = y1.max(*y);
        }
        if series.is_empty() {
            continue;
        }
        let (lx0, lx1) = (x0.log2(), x1.log2().max(x0.log2() + 1.0));
        let (ly0, ly1) = (
            y0.log10().floor(),
            y1.log10().ceil().max(y0.log10().floor() + 1.0),
        );
        let ox = W * panel as f64;
        let px = |x: f64| ox + PAD_L + (x.log2() - lx0) / (lx1 - lx0) * (W - PAD_L - PAD_R);
        let py = |y: f64| PAD_T + (ly1 - y.log10()) / (ly1 - ly0) * (H - PAD_T - PAD_B);
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"22\" font-size=\"14\" text-anchor=\"middle\">{f}: median time per call vs n</text>",
            ox + W / 2.0
        );
        // Axes and grid.
        let _ = writeln!(
            s,
            "<rect x=\"{}\" y=\"{PAD_T}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>",
            ox + PAD_L,
            W - PAD_L - PAD_R,
            H - PAD_T - PAD_B
        );
        let mut e = ly0 as i32;
        while e as f64 <= ly1 {
            let y = py(10f64.powi(e));
            let _ = writeln!(
                s,
                "<line x1=\"{}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
                 <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                ox + PAD_L,
                ox + W - PAD_R,
                ox + PAD_L - 5.0,
                y + 4.0,
                decade_label(e)
            );
            e += 1;
        }
        let mut k = lx0.ceil() as i32;
        while k as f64 <= lx1 {
            let x = px(2f64.powi(k));
            let _ = writeln!(
                s,
                "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{PAD_T}\" y2=\"{}\" stroke=\"#eee\"/>\
                 <text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                H - PAD_B,
                H - PAD_B + 15.0,
                1u64 << k
            );
            k += 1;
        }
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">n (inputs), log scale</text>",
            ox + W / 2.0,
            H - 12.0
        );
        for (i, pts) in &series {
            let color = COLORS[i % COLORS.len()];
            let path: Vec<String> = pts
                .iter()
                .map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y)))
                .collect();
            let _ = writeln!(
                s,
                "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" points=\"{}\"/>",
                path.join(" ")
            );
            for (x, y) in pts {
                let _ = writeln!(
                    s,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"{color}\"/>",
                    px(*x),
                    py(*y)
                );
            }
        }
    }
    // Legend.
    for (i, (_, title)) in modes.iter().enumerate() {
        let x = 20.0 + (i % 5) as f64 * 200.0;
        let y = H + 15.0 + (i / 5) as f64 * 20.0;
        let color = COLORS[i % COLORS.len()];
        let _ = writeln!(
            s,
            "<line x1=\"{x}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"{color}\" stroke-width=\"2\"/>\
             <text x=\"{}\" y=\"{}\">{title}</text>",
            x + 20.0,
            x + 25.0,
            y + 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_criterions_estimates() {
        let text = r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0},"point_estimate":1.5,"standard_error":0.1},"median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.2,"upper_bound":1.4},"point_estimate":1.25e2,"standard_error":0.01},"slope":null,"x":[true,false,"a\"b\u00e9"]}"#;
        let j = Json::parse(text).unwrap();
        assert_eq!(
            j.get("median")
                .and_then(|m| m.get("point_estimate"))
                .and_then(Json::as_f64),
            Some(125.0)
        );
        assert!(Json::parse("{\"a\": }").is_err());
        assert!(Json::parse("[1, 2").is_err());
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

    #[test]
    fn the_generated_section_is_replaced_or_inserted() {
        let section = format!("{BEGIN}\nnew\n{END}");
        let doc = "## Performance\nintro\n";
        let once = with_generated_section(doc, &section);
        assert_eq!(once, format!("## Performance\n\n{section}\nintro\n"));
        let again = with_generated_section(&once, &format!("{BEGIN}\nnewer\n{END}"));
        assert!(again.contains("newer") && !again.contains("new\n") && again.ends_with("intro\n"));
    }

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
        assert!(plot(&m).contains("<polyline"));
        assert_eq!(
            [0, 2, 3, 7, 9].map(decade_label),
            ["1 ns", "100 ns", "1 µs", "10 ms", "1 s"]
        );
    }
}
