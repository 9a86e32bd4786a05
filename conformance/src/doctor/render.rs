//! The doctor's report as a table for people or JSON for scripts.
#![forbid(unsafe_code)]

use super::Row;

/// One line per backend: name, `usable` or `not usable`, detail.
pub(super) fn table(rows: &[Row]) -> String {
    let mut out = String::new();
    for row in rows {
        let state = if row.usable { "usable" } else { "not usable" };
        // A loader message may hold a newline; the report keeps one line per backend.
        let detail = row.detail.replace(['\n', '\r'], " ");
        out.push_str(&format!("{:<9} {state:<10}  {detail}\n", row.backend));
    }
    out
}

/// A JSON array of one object per backend, with a final newline.
pub(super) fn json(rows: &[Row]) -> serde_json::Result<String> {
    let mut text = serde_json::to_string_pretty(rows)?;
    text.push('\n');
    Ok(text)
}
