//! Each labelled turn played against a fresh profile of its person, through the offline coach
//! and the service's guards, and scored as the corpus README says: a change turn counts when
//! exactly the expected field changed, the key phrase is there (or gone, for a removal, from a
//! field that is not blank), and the field reads cleanly and keeps the rest; a none or ask turn
//! counts when nothing changed.

use adapters_llm::offline::coach::reply_and_act;
use domain::coaching::CoachingStyle;
use domain::ports::CoachRequest;
use domain::profile::{EditableField, Profile};
use domain::reflection::{Author, ReflectionMessage, ReflectionTurn, person_words};
use domain::text::MessageText;

use super::rules::{contains, content, doubled_word, first_person};
use super::{People, Turn};

/// One turn's result.
#[derive(Debug, Clone)]
pub struct Played<'a> {
    pub turn: &'a Turn,
    pub changed: Vec<EditableField>,
    pub landed: bool,
    pub reply: String,
    pub after: Profile,
}

/// Plays every turn of `people`.
///
/// # Errors
/// A message when a person's profile cannot be made.
pub fn play(people: &People) -> Result<Vec<Played<'_>>, String> {
    let mut out = Vec::new();
    for turn in &people.turns {
        let person = &people.persons[&turn.person];
        let profile = person.profile()?;
        out.push(play_one(&profile, turn));
    }
    Ok(out)
}

fn play_one<'a>(profile: &Profile, turn: &'a Turn) -> Played<'a> {
    let Ok(text) = MessageText::new(turn.message.clone()) else {
        return score(turn, profile, profile.clone(), String::new());
    };
    let said = ReflectionTurn::Message(text);
    let request = CoachRequest {
        profile: profile.clone(),
        dialogue: Vec::new(),
        style: CoachingStyle::Direct,
        turn: said.clone(),
        feedback: None,
    };
    let (draft, _) = reply_and_act(&request);
    let message = ReflectionMessage::new(
        profile.user_id,
        Author::Person,
        turn.message.clone(),
        profile.created_at,
    );
    let reply = draft.guard(&said, &person_words(&[], Some(&message)));
    let mut after = profile.clone();
    after.prose = profile.prose.with(&reply.edit);
    score(turn, profile, after, reply.message.as_str().to_owned())
}

fn score<'a>(turn: &'a Turn, before: &Profile, after: Profile, reply: String) -> Played<'a> {
    let text = |p: &Profile, f: EditableField| {
        p.prose
            .get(f)
            .map_or_else(String::new, |v| v.as_str().to_owned())
    };
    let changed: Vec<EditableField> = EditableField::ALL
        .into_iter()
        .filter(|f| text(before, *f) != text(&after, *f))
        .collect();
    let expected = turn.field.parse::<EditableField>().ok();
    let landed = match turn.effect.as_str() {
        "none" | "ask" => changed.is_empty(),
        effect => expected.is_some_and(|field| {
            let (old, new) = (text(before, field), text(&after, field));
            let right_change = changed == [field]
                && if effect == "remove" {
                    !contains(&new, &turn.key_phrase) && !new.trim().is_empty()
                } else {
                    contains(&new, &turn.key_phrase)
                };
            right_change && well_formed(&old, &new, effect, &turn.key_phrase)
        }),
    };
    Played {
        turn,
        changed,
        landed,
        reply,
        after,
    }
}

/// The changed field reads cleanly and keeps what the person did not touch.
fn well_formed(before: &str, after: &str, effect: &str, phrase: &str) -> bool {
    if doubled_word(after) || first_person(after) {
        return false;
    }
    let kept = content(after);
    let touched = content(phrase);
    let old: Vec<String> = content(before)
        .into_iter()
        .filter(|w| !touched.contains(w))
        .collect();
    let share = match effect {
        "add" => 0.9,
        "remove" => 0.4,
        _ => return true,
    };
    if old.is_empty() {
        return true;
    }
    #[allow(clippy::cast_precision_loss)]
    let found = old.iter().filter(|w| kept.contains(w)).count() as f64;
    #[allow(clippy::cast_precision_loss)]
    let needed = share * old.len() as f64;
    found >= needed
}

/// The report: each miss, the figures per effect, and the last line the README names.
#[must_use]
pub fn report(name: &str, played: &[Played<'_>], verbose: bool) -> String {
    let mut lines = Vec::new();
    for p in played.iter().filter(|p| verbose && !p.landed) {
        lines.push(format!(
            "MISS [{name}/{}] {} {}: {:?} -> changed {:?}; coach: {:?}",
            p.turn.person,
            p.turn.effect,
            p.turn.field,
            p.turn.message,
            p.changed.iter().map(|f| f.name()).collect::<Vec<_>>(),
            p.reply.chars().take(120).collect::<String>()
        ));
    }
    for effect in ["replace", "add", "remove", "ask", "none"] {
        let of: Vec<&Played<'_>> = played.iter().filter(|p| p.turn.effect == effect).collect();
        if !of.is_empty() {
            let landed = of.iter().filter(|p| p.landed).count();
            lines.push(format!("{effect}: {landed}/{}", of.len()));
        }
    }
    let (changes, still) = totals(played);
    lines.push(format!(
        "changes {}/{} landed, {}/{} still",
        changes.0, changes.1, still.0, still.1
    ));
    lines.join("\n")
}

/// (landed, of) for the change turns and for the none/ask turns.
#[must_use]
pub fn totals(played: &[Played<'_>]) -> ((usize, usize), (usize, usize)) {
    let change = |p: &&Played<'_>| matches!(p.turn.effect.as_str(), "replace" | "add" | "remove");
    let count = |keep: &dyn Fn(&&Played<'_>) -> bool| {
        let of: Vec<&Played<'_>> = played.iter().filter(|p| keep(p)).collect();
        (of.iter().filter(|p| p.landed).count(), of.len())
    };
    (count(&change), count(&|p| !change(p)))
}
