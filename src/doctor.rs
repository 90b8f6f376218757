//! `qa doctor`: the effective settings and where each came from, model files, indexes and logs,
//! with a fix for every problem found. Exit code 1 when something needed is missing.

use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use crate::config::Settings;
use qa_settings::doctor::{Check, checks, settings_view};

pub fn run(settings: &Settings, json_out: bool) -> Result<ExitCode> {
    let checks = checks(settings);
    let settings_view = settings_view(settings);
    let all_ok = checks.iter().all(|c| c.ok);
    if json_out {
        let report = json!({
            "ok": all_ok,
            "config_file": settings.config_file,
            "settings": settings_view,
            "checks": checks,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(settings, &settings_view, &checks);
    }
    Ok(if all_ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The human-readable report: version, config file, settings with their origin, the checks.
fn print_text(settings: &Settings, settings_view: &[serde_json::Value], checks: &[Check]) {
    println!("qa {}", env!("CARGO_PKG_VERSION"));
    match &settings.config_file {
        Some(p) => println!("config file: {}", p.display()),
        None => println!("config file: none (./qa.toml not found)"),
    }
    println!("\nSettings (flag > env QA_* > qa.toml > default):");
    for s in settings_view {
        println!("  {:<22} {:<28} {}", s["key"].as_str().unwrap_or(""), s["value"].to_string(), s["origin"].as_str().unwrap_or(""));
    }
    println!("\nChecks:");
    for c in checks {
        println!("  [{}] {}: {}", if c.ok { " ok " } else { "FAIL" }, c.name, c.detail);
        if let Some(f) = &c.fix {
            println!("         fix: {f}");
        }
    }
}
