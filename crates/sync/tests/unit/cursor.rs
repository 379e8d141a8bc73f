//! The live import's state file: written whole or not at all, read back, refused when it
//! holds no cursor, and its default place under the XDG state directory.

use discovery_sync::cursor::{default_path, read, write};
use time::macros::datetime;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("discovery-cursor-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_cursor_is_written_in_a_new_directory_and_read_back_and_no_temporary_file_stays() {
    let dir = scratch("round");
    let path = dir.join("nested/aw.json");
    assert_eq!(read(&path).unwrap(), None, "no file yet: the first run");
    write(&path, datetime!(2026-03-16 10:00 UTC)).unwrap();
    write(&path, datetime!(2026-03-16 12:00 +02:00)).unwrap();
    assert_eq!(read(&path).unwrap(), Some(datetime!(2026-03-16 10:00 UTC)));
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, "{\"imported_until\":\"2026-03-16T10:00:00Z\"}\n");
    let names: Vec<_> = std::fs::read_dir(dir.join("nested"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("aw.json")]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_state_file_without_a_cursor_is_refused_naming_it() {
    let dir = scratch("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("aw.json");
    for text in ["", "{}", "{\"imported_until\": \"yesterday\"}", "not json"] {
        std::fs::write(&path, text).unwrap();
        let error = read(&path).unwrap_err();
        assert_eq!(error.exit_code(), 1);
        assert!(
            error.message().contains("aw.json") && error.message().contains("--since"),
            "{error}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_default_path_is_one_file_per_server_under_the_state_directory() {
    let a = default_path(&url::Url::parse("http://127.0.0.1:5600").unwrap());
    let b = default_path(&url::Url::parse("http://work-laptop:5666/").unwrap());
    let (Some(a), Some(b)) = (a, b) else {
        // Neither XDG_STATE_HOME nor HOME: no default, which the run reports as bad usage.
        return;
    };
    assert!(
        a.ends_with("discovery-sync/activitywatch-127.0.0.1-5600.json"),
        "{a:?}"
    );
    assert!(
        b.ends_with("discovery-sync/activitywatch-work-laptop-5666.json"),
        "{b:?}"
    );
}
