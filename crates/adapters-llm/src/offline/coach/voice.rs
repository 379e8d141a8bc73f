//! The coach's own wording in each coaching style: every fixed sentence it may say. Kept in one
//! place so a test can check all of it for verdict words, and so the styles stay comparable.

use domain::coaching::CoachingStyle;
use domain::profile::{EditableField, Triad};

/// The fixed sentences of one style. `{n}`, `{triad}`, `{words}`, `{gist}` and `{part}` are
/// filled in by the coach.
#[derive(Debug)]
pub struct Voice {
    pub opener_lead: &'static str,
    /// The type, its triad in plain words and what drives it.
    pub type_line: &'static str,
    pub no_goals: &'static str,
    pub opener_question: &'static str,
    /// Put before the person's sentence said back in the second person.
    pub reflect_lead: &'static str,
    /// Put before a quote of a sentence that is not in English (it is not said back).
    pub reflect_lead_quoted: &'static str,
    /// The reply to a short agreement ("That feels right").
    pub agreed: &'static str,
    /// The reply to a question the profile does not answer.
    pub asked: &'static str,
    /// Asked when a correction may be about either of two parts: `{a}` or `{b}`.
    pub ask_two: &'static str,
    /// Said when a removal would leave a part (`{part}`) empty.
    pub would_empty: &'static str,
    /// Asked after a reflection, in turn (by the number of coach turns so far).
    pub reflect_questions: [&'static str; 3],
    /// Asked when the person mentions a part without correcting it.
    pub part_question: &'static str,
    /// Asked when the person corrects something without naming the part.
    pub ask_part: &'static str,
    pub revised_lead: &'static str,
    pub revised_question: &'static str,
    /// The reply to a request to change type or triad, or to ignore the coach's rules.
    pub protected: &'static str,
    /// The reply to a turn with no words in it.
    pub listening: &'static str,
    /// The reply to a request to drop a goal: the coach never clears one itself.
    pub goal_clear: &'static str,
}

const PARTS: &str = "what you love, what you are good at, what the world needs, what you can \
                     be paid for, where it all meets, or one of your goals";

static DIRECT: Voice = Voice {
    opener_lead: "Here is your profile as I read it from your answers.",
    type_line: "Type {n}, {triad} centre ({words}): {gist}.",
    no_goals: "You did not name a goal, so none is set here.",
    opener_question: "Which part fits least, and how would you put it?",
    reflect_lead: "So",
    reflect_lead_quoted: "You said:",
    agreed: "Good: it stays as it is.",
    asked: "That one is yours to answer; here I say back your words and change the parts you correct.",
    ask_two: "Which part do you mean: {a} or {b}?",
    would_empty: "That would leave {part} empty. What would you put there instead?",
    reflect_questions: [
        "Which part of your profile does this touch?",
        "What would make your profile more accurate here?",
        "Which words would you change, if any?",
    ],
    part_question: "Anything in {part} you would put differently?",
    ask_part: "Which part do you mean: {parts}?",
    revised_lead: "Updated in your words.",
    revised_question: "Anything else to correct?",
    protected: "Type and triad come from your discovery answers and stay as they are in \
                reflection; here I only change the parts you correct or add to, in your own words. \
                If they feel wrong, you can answer the discovery prompts again before you affirm \
                your profile.",
    listening: "I'm listening.",
    goal_clear: "I only write goals you state, and I do not clear them: to remove a goal, edit \
                 your profile and leave it empty.",
};

static WARM: Voice = Voice {
    opener_lead: "Thank you for sharing all of this. Here is what I heard from you.",
    type_line: "You came out as type {n}, in the {triad} centre, where {words} lead the way: \
                {gist}.",
    no_goals: "You did not name a goal, and that is perfectly fine: none is set for you.",
    opener_question: "What in this feels most like you, and what would you put differently?",
    reflect_lead: "It sounds like",
    reflect_lead_quoted: "I hear you:",
    agreed: "I'm glad it feels right to you.",
    asked: "That is a good question to sit with; I can say back what you share and change only what you correct.",
    ask_two: "I'd like to get this right for you. Do you mean {a} or {b}?",
    would_empty: "I'd rather not leave {part} empty. What would you like it to say instead?",
    reflect_questions: [
        "How does that connect with what matters most to you?",
        "What feels most true for you in that?",
        "Where in your profile do you recognise yourself in this?",
    ],
    part_question: "Is there anything in {part} that you would like to put in other words?",
    ask_part: "I'd like to get this right for you. Which part do you mean: {parts}?",
    revised_lead: "Thank you for putting it in your own words. I have updated it.",
    revised_question: "Does it sound like you now?",
    protected: "I understand. Your type and triad come from your discovery answers and stay as \
                they are here; what I can change are the parts you correct or add to, in your own \
                words. If they feel wrong, you can answer the discovery prompts again before you \
                affirm your profile.",
    listening: "I'm here and listening.",
    goal_clear: "Thank you for telling me. I only write goals you state and never clear one \
                 myself; you can remove it by editing your profile and leaving it empty.",
};

static REFLECTIVE: Voice = Voice {
    opener_lead: "Let's look together at what your answers hold.",
    type_line: "Your answers point to type {n}, in the {triad} centre of {words}, with {gist}.",
    no_goals: "You left the goals open, and they stay open until you choose one.",
    opener_question: "Reading it back, what stands out to you, and what feels missing?",
    reflect_lead: "What I hear is that",
    reflect_lead_quoted: "You wrote:",
    agreed: "Then let it stand as it is for now.",
    asked: "Let's stay with that question for a moment.",
    ask_two: "Is this about {a}, or about {b}?",
    would_empty: "Without it, {part} would be empty. What would you put there instead?",
    reflect_questions: [
        "What do you notice when you put it that way?",
        "What lies underneath that for you?",
        "How does this sit with what you wrote about what you love?",
    ],
    part_question: "When you read {part} in your profile, what would you put differently, if \
                    anything?",
    ask_part: "Which part of your profile is this about: {parts}?",
    revised_lead: "I have changed it so that it reads in your words.",
    revised_question: "How does it feel to see it written this way?",
    protected: "Your type and triad stay as your discovery answers set them; in reflection, only \
                the parts you correct or add to change, and in your own words. If they feel \
                wrong, you can answer the discovery prompts again before you affirm your profile.",
    listening: "Take your time.",
    goal_clear: "I leave goals exactly as you set them; if you want this one gone, you can empty \
                 it when you edit your profile.",
};

/// The voice of a style.
#[must_use]
pub fn voice(style: CoachingStyle) -> &'static Voice {
    match style {
        CoachingStyle::Direct => &DIRECT,
        CoachingStyle::Warm => &WARM,
        CoachingStyle::Reflective => &REFLECTIVE,
    }
}

/// A triad in plain words.
#[must_use]
pub const fn triad_words(triad: Triad) -> &'static str {
    match triad {
        Triad::Gut => "instinct and action",
        Triad::Heart => "feelings and relationships",
        Triad::Head => "thinking, understanding and planning",
    }
}

/// How the coach names a part to the person.
#[must_use]
pub const fn part_label(field: EditableField) -> &'static str {
    match field {
        EditableField::LoveSummary => "what you love",
        EditableField::StrengthSummary => "what you are good at",
        EditableField::MissionSummary => "what the world needs",
        EditableField::VocationSummary => "what you can be paid for",
        EditableField::OverlapNarrative => "where it all meets",
        EditableField::NearTermGoalSummary => "your goal for the next 6-12 months",
        EditableField::LongTermGoalSummary => "your goal for the next 3-5 years",
    }
}

/// The heading of a part in the opener and in a revision reply.
#[must_use]
pub const fn part_heading(field: EditableField) -> &'static str {
    match field {
        EditableField::LoveSummary => "What you love",
        EditableField::StrengthSummary => "What you are good at",
        EditableField::MissionSummary => "What the world needs",
        EditableField::VocationSummary => "What you can be paid for",
        EditableField::OverlapNarrative => "Where it all meets",
        EditableField::NearTermGoalSummary => "Next 6-12 months",
        EditableField::LongTermGoalSummary => "Next 3-5 years",
    }
}

impl Voice {
    /// [`Voice::ask_part`] with the list of parts.
    #[must_use]
    pub fn ask_part(&self) -> String {
        self.ask_part.replace("{parts}", PARTS)
    }

    /// The question when the part of a correction cannot be told: which of the two candidates,
    /// or (with none) which of all the parts.
    #[must_use]
    pub fn ask(&self, candidates: &[EditableField]) -> String {
        match candidates {
            [a, b, ..] => self
                .ask_two
                .replace("{a}", part_label(*a))
                .replace("{b}", part_label(*b)),
            [one] => self.part_question(*one),
            [] => self.ask_part(),
        }
    }

    /// [`Voice::would_empty`] about one part.
    #[must_use]
    pub fn would_empty(&self, field: EditableField) -> String {
        self.would_empty.replace("{part}", part_label(field))
    }

    /// [`Voice::part_question`] about one part.
    #[must_use]
    pub fn part_question(&self, field: EditableField) -> String {
        self.part_question.replace("{part}", part_label(field))
    }

    /// [`Voice::type_line`] filled in.
    #[must_use]
    pub fn type_line(&self, enneagram_type: u8, triad: Triad, gist: &str) -> String {
        self.type_line
            .replace("{n}", &enneagram_type.to_string())
            .replace("{triad}", triad.key())
            .replace("{words}", triad_words(triad))
            .replace("{gist}", gist)
    }

    /// Every fixed sentence of this voice (for the vocabulary test).
    #[must_use]
    pub fn all_sentences(&self) -> Vec<&'static str> {
        let mut all = vec![
            self.opener_lead,
            self.type_line,
            self.no_goals,
            self.opener_question,
            self.reflect_lead,
            self.reflect_lead_quoted,
            self.agreed,
            self.asked,
            self.ask_two,
            self.would_empty,
            self.part_question,
            self.ask_part,
            self.revised_lead,
            self.revised_question,
            self.protected,
            self.listening,
            self.goal_clear,
            PARTS,
        ];
        all.extend(self.reflect_questions);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::coaching::vocabulary::find_verdict;

    #[test]
    fn no_fixed_sentence_of_any_style_holds_a_verdict_word() {
        for style in CoachingStyle::ALL {
            for sentence in voice(*style).all_sentences() {
                assert_eq!(find_verdict(sentence), None, "{style:?}: {sentence}");
            }
        }
        for field in EditableField::ALL {
            assert_eq!(find_verdict(part_label(field)), None);
            assert_eq!(find_verdict(part_heading(field)), None);
        }
        for triad in [Triad::Gut, Triad::Heart, Triad::Head] {
            assert_eq!(find_verdict(triad_words(triad)), None);
        }
    }

    #[test]
    fn the_three_styles_word_everything_differently() {
        let [d, w, r] = [
            voice(CoachingStyle::Direct),
            voice(CoachingStyle::Warm),
            voice(CoachingStyle::Reflective),
        ];
        assert_ne!(d.opener_lead, w.opener_lead);
        assert_ne!(w.opener_lead, r.opener_lead);
        assert_ne!(d.opener_question, r.opener_question);
        assert_ne!(d.reflect_questions, w.reflect_questions);
    }
}
