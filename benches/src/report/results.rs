//! Reading criterion's results: every `new/benchmark.json` and its
//! `new/estimates.json` under the output directory.

use std::path::Path;

use serde_json::Value;

/// One benchmark's latest result.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// Criterion group (the operation).
    pub group: String,
    /// Function id (the backend, `floor`, …).
    pub function: String,
    /// Parameter (a size label or a count; empty when none).
    pub param: String,
    /// Median time per iteration, ns.
    pub median: f64,
    /// 95 % confidence interval of the median, ns.
    pub median_ci: (f64, f64),
    /// Bytes per iteration, when criterion was told (copies).
    pub bytes: Option<u64>,
}

impl Measurement {
    /// Bytes per second, for copies.
    pub fn bytes_per_second(&self) -> Option<f64> {
        self.bytes.map(|b| b as f64 / (self.median * 1e-9))
    }
}

/// Every measurement under `dir` (criterion's output directory), sorted by id.
pub fn read(dir: &Path) -> Vec<Measurement> {
    let mut out = Vec::new();
    walk(dir, 0, &mut out);
    out.sort_by(|a, b| (&a.group, &a.function, &a.param).cmp(&(&b.group, &b.function, &b.param)));
    out
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<Measurement>) {
    if depth > 6 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.filter_map(Result::ok) {
        let p = e.path();
        if !p.is_dir() {
            continue;
        }
        if p.file_name().is_some_and(|n| n == "new") {
            if let Some(m) = read_one(&p) {
                out.push(m);
            }
        } else if p.file_name().is_none_or(|n| n != "report" && n != "base" && n != "change") {
            walk(&p, depth + 1, out);
        }
    }
}

fn json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// One `new/` directory.
pub fn read_one(new: &Path) -> Option<Measurement> {
    let b = json(&new.join("benchmark.json"))?;
    let e = json(&new.join("estimates.json"))?;
    let median = e.get("median")?;
    let ci = median.get("confidence_interval")?;
    let bytes =
        b.get("throughput").and_then(|t| t.get("Bytes").or_else(|| t.get("BytesDecimal"))).and_then(Value::as_u64);
    Some(Measurement {
        group: b.get("group_id")?.as_str()?.to_owned(),
        function: b.get("function_id").and_then(Value::as_str).unwrap_or("").to_owned(),
        param: b.get("value_str").and_then(Value::as_str).unwrap_or("").to_owned(),
        median: median.get("point_estimate")?.as_f64()?,
        median_ci: (ci.get("lower_bound")?.as_f64()?, ci.get("upper_bound")?.as_f64()?),
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two files as criterion 0.5 writes them (trimmed).
    fn fake(dir: &Path, group: &str, function: &str, param: &str, median: f64, bytes: Option<u64>) {
        let new = dir.join(group).join(function).join(param).join("new");
        std::fs::create_dir_all(&new).unwrap();
        let tp = bytes.map_or(Value::Null, |b| serde_json::json!({ "Bytes": b }));
        let b = serde_json::json!({
            "group_id": group, "function_id": function, "value_str": param, "throughput": tp,
            "full_id": format!("{group}/{function}/{param}"), "directory_name": format!("{group}/{function}/{param}"),
            "title": format!("{group}/{function}/{param}"),
        });
        let est = |x: f64| {
            serde_json::json!({
                "confidence_interval": { "confidence_level": 0.95, "lower_bound": x * 0.99, "upper_bound": x * 1.01 },
                "point_estimate": x, "standard_error": 1.0,
            })
        };
        let e = serde_json::json!({ "mean": est(median), "median": est(median), "median_abs_dev": est(1.0), "slope": est(median), "std_dev": est(1.0) });
        std::fs::write(new.join("benchmark.json"), b.to_string()).unwrap();
        std::fs::write(new.join("estimates.json"), e.to_string()).unwrap();
    }

    pub(crate) fn fixture(dir: &Path) {
        fake(dir, "alloc_free", "emulator", "2MiB", 3000.0, None);
        fake(dir, "alloc_free", "floor", "2MiB", 2000.0, None);
        fake(dir, "copy_h2d", "emulator", "64MiB", 10e6, Some(64 << 20));
        fake(dir, "copy_h2d", "floor", "64MiB", 9.5e6, Some(64 << 20));
        // criterion keeps the previous run in base/: never read.
        let base = dir.join("alloc_free/floor/2MiB/base");
        std::fs::create_dir_all(&base).unwrap();
    }

    #[test]
    fn reads_what_criterion_writes() {
        let dir = tempfile::tempdir().unwrap();
        fixture(dir.path());
        let m = read(dir.path());
        assert_eq!(m.len(), 4);
        assert_eq!(
            (m[0].group.as_str(), m[0].function.as_str(), m[0].param.as_str()),
            ("alloc_free", "emulator", "2MiB")
        );
        assert_eq!(m[0].median, 3000.0);
        let c = m.iter().find(|m| m.group == "copy_h2d" && m.function == "emulator").unwrap();
        let gbs = c.bytes_per_second().unwrap() / 1e9;
        assert!((gbs - 6.71).abs() < 0.01, "{gbs}");
    }
}
