//! `--max-skipped`: a count or a share of the rows, and its defaults.

use discovery_sync::skipped::MaxSkipped;

#[test]
fn a_count_or_a_share_is_read_and_anything_else_refused() {
    assert_eq!(MaxSkipped::parse("12"), Ok(MaxSkipped::Count(12)));
    assert_eq!(MaxSkipped::parse(" 2.5% "), Ok(MaxSkipped::Percent(2.5)));
    for bad in ["-1", "5 %%", "101%", "five", "", "%"] {
        assert!(MaxSkipped::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn the_limit_is_exceeded_only_past_it() {
    let five = MaxSkipped::default_for(false);
    assert_eq!(five, MaxSkipped::Percent(5.0));
    assert!(!five.exceeded_by(5, 100), "exactly 5% is allowed");
    assert!(five.exceeded_by(6, 100));
    assert!(five.exceeded_by(1, 10));
    let strict = MaxSkipped::default_for(true);
    assert!(!strict.exceeded_by(0, 10));
    assert!(strict.exceeded_by(1, 1_000_000));
    assert!(!MaxSkipped::Count(3).exceeded_by(3, 3));
}
