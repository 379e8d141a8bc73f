//! Team exports at the parser: several people without `--user` refused naming them; one
//! person's rows by e-mail or name, any case, the others counted.

use discovery_sync::import::{CsvOptions, ImportError, People, toggl};
use time::macros::offset;

const TOGGL: &str = include_str!("../fixtures/import/toggl_detailed.csv");

fn with(people: People) -> Result<discovery_sync::import::Parsed, ImportError> {
    let mut options = CsvOptions::new(offset!(+2));
    options.people = people;
    toggl::parse(TOGGL.as_bytes(), options)
}

#[test]
fn several_people_without_a_choice_are_refused_naming_each() {
    let Err(ImportError::People(message)) = with(People::One) else {
        panic!("not refused");
    };
    assert!(
        message.contains("Elena Ruiz <elena@example.org>, Mira Koch <mira@example.org>"),
        "{message}"
    );
}

#[test]
fn one_person_is_found_by_e_mail_or_name_in_any_case() {
    let all = with(People::All).unwrap();
    for who in ["MIRA@example.org", " mira koch "] {
        let mira = with(People::Only(who.to_owned())).unwrap();
        assert_eq!(mira.entries.len(), 1, "{who}");
        assert_eq!(mira.entries[0], *all.entries.last().unwrap());
        assert_eq!(
            mira.other_people,
            all.entries.len() - 1 + all.skipped.len(),
            "Elena's rows, the bad ones too, are hers to fix"
        );
        assert!(mira.skipped.is_empty());
    }
}
