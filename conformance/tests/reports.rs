//! The runner and the reports, on the self-test catalog (rules that pass,
//! fail, crash, hang or are not-supported on purpose) and on backends that
//! cannot run anything here: outcomes, exit status, JSON and JUnit parsed
//! back, baselines, and nothing left behind.

mod binary;

use std::collections::HashMap;
use std::io::Write;

use quick_xml::Reader;
use quick_xml::events::Event;
use serde_json::Value;
use vmmkit_conformance::backend::BackendKind;

use binary::{conformance, stdout};

/// Every self-test rule but the one that hangs.
const NO_HANG: &str = "SELF-[!H]*";

fn json_of(args: &[&str]) -> (Value, Option<i32>) {
    let mut all = vec!["--catalog", "selftest", "--format", "json"];
    if !args.contains(&"--timeout") {
        all.extend_from_slice(&["--timeout", "10"]);
    }
    all.extend_from_slice(args);
    let o = conformance(&all);
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("JSON: {e}\n{}\n{}", stdout(&o), String::from_utf8_lossy(&o.stderr)));
    (v, o.status.code())
}

fn by_id(v: &Value) -> HashMap<String, Value> {
    v["rules"].as_array().unwrap().iter().map(|r| (r["id"].as_str().unwrap().to_string(), r.clone())).collect()
}

fn baseline(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[test]
fn json_report_has_stable_keys_and_every_outcome() {
    let (v, code) = json_of(&["--filter", NO_HANG]);
    assert_eq!(code, Some(1), "failures make the run fail");
    for key in ["backend", "catalog", "duration_ms", "rules", "stale", "summary"] {
        assert!(v.get(key).is_some(), "top-level key {key}");
    }
    for key in ["name", "detail", "library"] {
        assert!(v["backend"].get(key).is_some(), "backend key {key}");
    }
    let rules = by_id(&v);
    for r in rules.values() {
        for key in [
            "id",
            "group",
            "text",
            "apis",
            "confidence",
            "sources",
            "note",
            "outcome",
            "expected",
            "got",
            "reason",
            "detail",
            "known",
            "duration_ms",
        ] {
            assert!(r.get(key).is_some(), "{}: key {key}", r["id"]);
        }
    }
    let outcome = |id: &str| rules[id]["outcome"].as_str().unwrap().to_string();
    let got = |id: &str| rules[id]["got"].as_str().unwrap_or_default().to_string();
    assert_eq!(outcome("SELF-PASS-001"), "pass");
    assert_eq!(outcome("SELF-FAIL-001"), "fail");
    assert_eq!(got("SELF-FAIL-001"), "107000 ACL_ERROR_RT_PARAM_INVALID");
    assert_eq!(rules["SELF-FAIL-001"]["expected"], "0 ACL_SUCCESS");
    assert_eq!(got("SELF-FAIL-002"), "setup: aclrtMallocPhysical returned 207001 ACL_ERROR_RT_MEMORY_ALLOCATION");
    assert_eq!(outcome("SELF-NS-001"), "not-supported");
    assert_eq!(rules["SELF-NS-001"]["reason"], "the feature is absent here");
    assert_eq!(got("SELF-CRASH-001"), "killed by signal 11");
    assert_eq!(got("SELF-EXIT-001"), "exited with status 7 without a result");
    assert!(got("SELF-PEER-001").contains("exited with status 3"), "{}", got("SELF-PEER-001"));
    assert!(got("SELF-PEER-002").contains("killed by signal 9"), "{}", got("SELF-PEER-002"));
    let s = &v["summary"];
    assert_eq!((s["passed"].as_u64(), s["not_supported"].as_u64(), s["skipped"].as_u64()), (Some(2), Some(1), Some(0)));
    assert_eq!(s["failed"].as_u64(), Some(7));
    assert_eq!(s["total"].as_u64(), Some(10));
}

#[test]
fn hung_rule_is_a_failure_with_the_deadline() {
    // The rule never ends: the run ending at all, with the failure that
    // names the deadline, is the proof that the deadline was enforced.
    let (v, code) = json_of(&["--filter", "SELF-HANG-001", "--timeout", "1"]);
    assert_eq!(code, Some(1));
    let r = &by_id(&v)["SELF-HANG-001"];
    assert_eq!((r["outcome"].as_str(), r["got"].as_str()), (Some("fail"), Some("no result in 1 s")));
    // It was given the whole second (a lower bound only: nothing here can
    // flake on a loaded machine).
    assert!(r["duration_ms"].as_u64().is_some_and(|ms| ms >= 1000), "{r}");
}

/// Attributes of an element, unescaped.
fn attrs(e: &quick_xml::events::BytesStart<'_>) -> HashMap<String, String> {
    e.attributes()
        .map(|a| {
            let a = a.unwrap();
            (String::from_utf8(a.key.as_ref().to_vec()).unwrap(), a.unescape_value().unwrap().into_owned())
        })
        .collect()
}

#[test]
fn junit_parses_back_with_escaped_messages() {
    let o = conformance(&["--catalog", "selftest", "--filter", NO_HANG, "--format", "junit", "--timeout", "10"]);
    let xml = stdout(&o);
    let mut reader = Reader::from_str(&xml);
    let (mut suites, mut cases, mut failures, mut skipped) = (0, Vec::new(), HashMap::new(), 0);
    let mut current: Option<String> = None;
    let mut top = HashMap::new();
    loop {
        match reader.read_event().unwrap_or_else(|e| panic!("XML: {e}\n{xml}")) {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => {
                let a = attrs(&e);
                match e.name().as_ref() {
                    b"testsuites" => top = a,
                    b"testsuite" => suites += 1,
                    b"testcase" => {
                        assert!(a["classname"].starts_with("selftest."), "{a:?}");
                        cases.push(a["name"].clone());
                        current = Some(a["name"].clone());
                    }
                    b"failure" => {
                        failures.insert(current.clone().unwrap(), a["message"].clone());
                    }
                    b"skipped" => skipped += 1,
                    _ => {}
                }
            }
            _ => {}
        }
    }
    assert_eq!(suites, 2, "one testsuite per group");
    assert_eq!(cases.len(), 10);
    assert_eq!(failures.len(), 7);
    assert_eq!(skipped, 1);
    assert_eq!(top["tests"], "10");
    assert_eq!(top["failures"], "7");
    assert_eq!(
        failures["SELF-XML-001"], "expected 0 ACL_SUCCESS, got <b>&amp; \"q\" 'a' \u{FFFD}\u{7f} ]]> end",
        "the message survives escaping"
    );
}

#[test]
fn table_groups_by_api_and_ends_with_the_summary() {
    let o = conformance(&["--catalog", "selftest", "--filter", NO_HANG, "--timeout", "10"]);
    let t = stdout(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(t.contains("\nselftest.basic\n") && t.contains("\nselftest.process\n"), "{t}");
    assert!(t.contains("expected 0 ACL_SUCCESS, got 107000 ACL_ERROR_RT_PARAM_INVALID"), "{t}");
    let last = t.lines().last().unwrap();
    assert_eq!(last, "2 passed, 7 failed, 1 not-supported, 0 skipped");
}

#[test]
fn baseline_excusing_the_failure_turns_the_run_green() {
    let args = ["--catalog", "selftest", "--filter", "SELF-FAIL-001", "--timeout", "10"];
    assert_eq!(conformance(&args).status.code(), Some(1), "red without a baseline");
    let b = baseline("# known differences\nSELF-FAIL-001 fail=107000 \"this backend checks earlier\"\n");
    let path = b.path().to_str().unwrap();
    let o = conformance(&[&args[..], &["--baseline", path]].concat());
    let t = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "green with the baseline:\n{t}");
    assert!(t.contains("KNOWN") && t.contains("known (baseline): this backend checks earlier"), "{t}");
    // A baseline that names another code does not excuse it, and is stale.
    let b = baseline("SELF-FAIL-001 fail=207001 \"wrong code\"\n");
    let o = conformance(&[&args[..], &["--baseline", b.path().to_str().unwrap()]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("SELF-FAIL-001 fail=207001 \"wrong code\": now fail"), "{}", stdout(&o));
}

#[test]
fn stale_baseline_entries_are_reported() {
    let b = baseline("SELF-PASS-001 fail \"was broken once\"\nSELF-GONE-001 fail \"removed rule\"\n");
    let path = b.path().to_str().unwrap();
    let (v, code) = json_of(&["--filter", "SELF-PASS-*", "--baseline", path]);
    assert_eq!(code, Some(0), "stale entries do not fail the run");
    let stale = v["stale"].as_array().unwrap();
    let ids: Vec<&str> = stale.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["SELF-PASS-001", "SELF-GONE-001"]);
    assert_eq!(stale[0]["now"], "now pass");
    assert_eq!(stale[1]["now"], "no rule has this id");
    assert_eq!(v["summary"]["stale"], 2);
}

#[test]
fn baseline_skip_entries_are_not_run() {
    let b = baseline("SELF-HANG-001 skip \"never ends\"\n");
    let (v, code) = json_of(&["--filter", "SELF-HANG-001", "--baseline", b.path().to_str().unwrap()]);
    assert_eq!(code, Some(0));
    // Run, the rule would hang until the deadline and fail ("no result in
    // 20 s"); skipped, it has no process: no detail, no time.
    let r = &by_id(&v)["SELF-HANG-001"];
    assert_eq!((r["outcome"].as_str(), r["reason"].as_str()), (Some("skipped"), Some("baseline: never ends")));
    assert_eq!((r["got"].as_str(), r["detail"].as_str(), r["duration_ms"].as_u64()), (None, None, Some(0)), "{r}");
}

#[test]
fn bad_options_are_errors_with_status_2() {
    let b = baseline("ACL-MAP-012 maybe \"x\"\n");
    for args in
        [vec!["--filter", "["], vec!["--baseline", b.path().to_str().unwrap()], vec!["--baseline", "/nonexistent"]]
    {
        let o = conformance(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The suite's rules of one vendor.
fn rules_of(d: vmmkit_conformance::rule::Dialect) -> usize {
    vmmkit_conformance::catalog::Catalog::Suite.rules().iter().filter(|r| r.dialect == d).count()
}

#[test]
fn a_named_backend_that_does_not_load_is_exit_2_with_the_reason() {
    let lib = ["--backend", "ascend", "--library", "/nonexistent/libascendcl.so"];
    let o = conformance(&lib);
    assert_eq!(o.status.code(), Some(2), "a gate must not be green when nothing ran: {}", stdout(&o));
    assert!(o.stdout.is_empty(), "no report: {}", stdout(&o));
    let e = stderr(&o);
    assert!(e.contains("backend ascend is unavailable") && e.contains("/nonexistent/libascendcl.so"), "{e}");
    assert!(e.contains("--allow-unavailable"), "the way out is named: {e}");
    // Through the environment, as a CI job sets it, the same.
    let o = binary::conformance_env(&["--library", "/nonexistent/libascendcl.so"], &[("VMMKIT_BACKEND", "ascend")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // `auto` falls back to the emulator, as documented: never this error.
    let auto = ["--library", "/nonexistent/libascendcl.so", "--catalog", "selftest", "--filter", "SELF-PASS-*"];
    let o = binary::conformance_env(&auto, &[("VMMKIT_BACKEND", "auto")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("backend emulator: auto: emulator"), "{}", stdout(&o));
}

#[test]
fn allow_unavailable_reports_only_the_vendors_rules_not_supported_and_exits_0() {
    let lib = ["--backend", "ascend", "--library", "/nonexistent/libascendcl.so", "--allow-unavailable"];
    let o = conformance(&[&lib[..], &["--format", "json"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("/nonexistent/libascendcl.so"), "the reason is still said: {}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rules = v["rules"].as_array().unwrap();
    let acl = rules_of(vmmkit_conformance::rule::Dialect::Acl);
    assert_eq!(rules.len(), acl, "only ACL rules, no --filter needed");
    for r in rules {
        assert!(r["id"].as_str().unwrap().starts_with("ACL-"), "{}", r["id"]);
        assert_eq!(r["outcome"], "not-supported", "{}", r["id"]);
        assert!(r["reason"].as_str().unwrap().contains("/nonexistent/libascendcl.so"), "{}", r["reason"]);
    }
    assert_eq!(v["summary"]["total"], acl);
    assert_eq!(v["backend"]["dialects"], serde_json::json!(["ACL"]));
    assert_eq!(v["backend"]["device"], "none");
    let t = stdout(&conformance(&lib));
    assert_eq!(t.lines().last(), Some(format!("0 passed, 0 failed, {acl} not-supported, 0 skipped").as_str()));
    assert!(!t.contains("HIP-") && !t.contains("CUDA-"), "{t}");
}

/// The hip backend with a library that is not there, allowed to be unavailable.
const HIP_ABSENT: [&str; 5] = ["--backend", "hip", "--library", "/nonexistent/libamdhip64.so", "--allow-unavailable"];

#[test]
fn a_filter_that_matches_no_rule_is_exit_2() {
    let o = conformance(&["--backend", "emulator", "--filter", "NOPE-*"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let e = stderr(&o);
    assert!(e.contains("no rule matches --filter 'NOPE-*'"), "{e}");
    assert!(e.contains("ACL-MAP-*") && e.contains("HIP-IPC-*") && e.contains("CUDA-VMM-*"), "the known prefixes: {e}");
    // A vendor backend's filter is matched against its own rules only.
    let o = conformance(&[&HIP_ABSENT[..], &["--filter", "ACL-*"]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let e = stderr(&o);
    assert!(e.contains("no rule matches --filter 'ACL-*' of backend hip (it runs only HIP rules)"), "{e}");
    assert!(e.contains("HIP-VMM-*") && !e.contains("ACL-MAP-*"), "{e}");
}

#[test]
fn baseline_entries_of_another_vendor_are_not_judged() {
    let b = baseline(
        "ACL-MAP-003 fail \"an ACL entry in a shared file\"\n\
         ACL-NOPE-999 fail \"a removed ACL rule\"\n\
         HIP-NOPE-999 fail \"a removed HIP rule\"\n",
    );
    let path = b.path().to_str().unwrap();
    let stale_ids = |v: &Value| -> Vec<String> {
        v["stale"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_string()).collect()
    };
    // On hip, the ACL entries are another vendor's: neither applied nor stale.
    let o = conformance(&[&HIP_ABSENT[..], &["--format", "json", "--baseline", path]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(stale_ids(&v), ["HIP-NOPE-999"]);
    // On the emulator every vendor is its own: both removed rules are stale.
    let o = conformance(&["--backend", "emulator", "--format", "json", "--filter", "HIP-INIT-*", "--baseline", path]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    assert_eq!(stale_ids(&v), ["ACL-NOPE-999", "HIP-NOPE-999"]);
}

#[test]
fn reports_name_the_backend_library_version_and_device() {
    let args = ["--backend", "emulator", "--catalog", "selftest", "--filter", "SELF-PASS-*", "--timeout", "10"];
    let t = stdout(&conformance(&args));
    let tail: Vec<&str> = t.lines().rev().take(4).collect();
    // Every dialect of the vendor list, in its order (`ACL, HIP, CUDA`).
    let dialects: Vec<&str> = BackendKind::Emulator.dialects().iter().map(|d| d.label()).collect();
    let want = format!("backend emulator: emulator (dialects {}; a fresh root per rule", dialects.join(", "));
    assert!(tail[3].starts_with(&want), "{t}");
    assert!(tail[2].starts_with("no library (vmmkit "), "{t}");
    assert_eq!(tail[1], "device: 2 emulated devices × 4 GiB per rule (more where a rule needs them)", "{t}");
    let (v, code) = json_of(&["--backend", "emulator", "--filter", "SELF-PASS-*"]);
    assert_eq!(code, Some(0));
    assert_eq!(v["backend"]["name"], "emulator");
    assert!(v["backend"]["version"].as_str().unwrap().starts_with("vmmkit "), "{}", v["backend"]);
    assert_eq!(v["backend"]["library"], Value::Null);
    assert_eq!(v["backend"]["dialects"], serde_json::json!(dialects));
    assert!(v["backend"]["device"].as_str().unwrap().contains("emulated devices"), "{}", v["backend"]);
    let xml = stdout(&conformance(&[&args[..], &["--format", "junit"]].concat()));
    let mut reader = Reader::from_str(&xml);
    let mut props = HashMap::new();
    loop {
        match reader.read_event().unwrap_or_else(|e| panic!("XML: {e}\n{xml}")) {
            Event::Eof => break,
            Event::Empty(e) if e.name().as_ref() == b"property" => {
                let a = attrs(&e);
                props.insert(a["name"].clone(), a["value"].clone());
            }
            _ => {}
        }
    }
    assert_eq!(props["backend"], "emulator", "{xml}");
    assert_eq!(props["library"], "none");
    assert!(props["version"].starts_with("vmmkit ") && props["device"].contains("emulated devices"), "{props:?}");
}

#[test]
fn run_leaves_nothing_in_dev_shm_or_tmp() {
    let child = std::process::Command::new(binary::exe())
        .args(["conformance", "--catalog", "selftest", "--filter", NO_HANG, "--timeout", "10"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let prefix = format!("vmmkit-conformance-{pid}-");
    for dir in ["/dev/shm".into(), std::env::temp_dir()] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let left: Vec<_> =
            entries.filter_map(Result::ok).filter(|e| e.file_name().to_string_lossy().starts_with(&prefix)).collect();
        assert!(left.is_empty(), "left in {}: {left:?}", dir.display());
    }
}

#[test]
fn output_file_holds_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    let o = conformance(&[
        "--catalog",
        "selftest",
        "--filter",
        "SELF-PASS-*",
        "--format",
        "json",
        "--output",
        path.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["summary"]["passed"], 2);
}
