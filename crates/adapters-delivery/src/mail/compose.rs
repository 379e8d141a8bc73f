//! The check-in e-mail, built from a `CheckInMail` and nothing else: a plain-text and an HTML
//! alternative saying the same (the goals as the person wrote them, the observation, the
//! question, the link to answer), and the one-click unsubscribe headers. Pure but for the Date
//! and Message-ID it stamps, so a test reads exactly what would be sent.

use std::fmt::Write as _;

use domain::ports::CheckInMail;
use lettre::Address;
use lettre::Message;
use lettre::message::{Mailbox, MultiPart};
use v_htmlescape::escape_fmt as html;

use super::headers::{ListUnsubscribe, ListUnsubscribePost};

pub const SUBJECT: &str = "Your check-in: does your direction still hold?";

/// Why a check-in e-mail could not be built. Neither variant quotes the address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ComposeError {
    #[error("the recipient's e-mail address is not valid")]
    Recipient,
    #[error("the e-mail could not be built")]
    Message,
}

/// The e-mail for `mail`, from `from`.
///
/// # Errors
/// [`ComposeError::Recipient`] when `mail.to` is not one bare address.
pub fn checkin(mail: &CheckInMail, from: &Mailbox) -> Result<Message, ComposeError> {
    // A bare `Address`, never a `Mailbox` parsed from the string: the stored e-mail may predate
    // the rule that it is an address, and as a mailbox `x<victim@evil.example>` names
    // victim@evil.example (To and envelope alike). As an address it is simply not valid.
    let to = Mailbox::new(
        None,
        mail.to
            .parse::<Address>()
            .map_err(|_| ComposeError::Recipient)?,
    );
    Message::builder()
        .message_id(Some(message_id(from)))
        .from(from.clone())
        .to(to)
        .subject(SUBJECT)
        .header(ListUnsubscribe(mail.unsubscribe_url.clone()))
        .header(ListUnsubscribePost)
        .multipart(MultiPart::alternative_plain_html(
            text(mail),
            html_page(mail),
        ))
        .map_err(|_| ComposeError::Message)
}

/// `<uuid@domain of From>`: relays add a Message-ID when there is none, but not all do, and
/// one named after the sender's domain is what spam filters expect.
fn message_id(from: &Mailbox) -> String {
    format!(
        "<{}@{}>",
        uuid::Uuid::now_v7().simple(),
        from.email.domain()
    )
}

const FOOTER: &str = "You receive these e-mails because you turned on check-ins by e-mail. \
                      To stop them, use your mail program's unsubscribe button or turn them \
                      off in your settings.";

/// The plain-text part. Each goal is quoted line by line with `> `, its words untouched.
#[must_use]
pub fn text(mail: &CheckInMail) -> String {
    let mut out = String::from("Hello,\n\nHere is your check-in.\n\n");
    if !mail.quoted_goals.is_empty() {
        out.push_str("Your goals, as your affirmed profile holds them:\n\n");
        for goal in &mail.quoted_goals {
            for line in goal.lines() {
                let _ = writeln!(out, "> {line}");
            }
            out.push('\n');
        }
    }
    if let Some(observation) = &mail.observation {
        let _ = write!(out, "What we noticed: {observation}\n\n");
    }
    let _ = write!(
        out,
        "{}\n\nAnswer it here: {}\n\n-- \n{FOOTER}\n",
        mail.message, mail.answer_url
    );
    out
}

/// The HTML part. Everything that comes from the person or the check-in is escaped, URLs
/// included, so a goal written as `<b>x</b>` arrives as those characters; line breaks are kept
/// by `white-space: pre-wrap` rather than by inserting markup.
#[must_use]
pub fn html_page(mail: &CheckInMail) -> String {
    const PRE: &str = "white-space: pre-wrap";
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n</head>\n<body>\n<p>Hello,</p>\n<p>Here is your check-in.</p>\n",
        html(SUBJECT)
    );
    if !mail.quoted_goals.is_empty() {
        out.push_str("<p>Your goals, as your affirmed profile holds them:</p>\n");
        for goal in &mail.quoted_goals {
            let _ = writeln!(
                out,
                "<blockquote style=\"{PRE}\">{}</blockquote>",
                html(goal)
            );
        }
    }
    if let Some(observation) = &mail.observation {
        let _ = writeln!(
            out,
            "<p style=\"{PRE}\">What we noticed: {}</p>",
            html(observation)
        );
    }
    let _ = write!(
        out,
        "<p style=\"{PRE}\">{}</p>\n<p><a href=\"{}\">Answer your check-in</a></p>\n\
         <hr>\n<p style=\"font-size: small; color: #555555\">{}</p>\n</body>\n</html>\n",
        html(&mail.message),
        html(&mail.answer_url),
        html(FOOTER),
    );
    out
}

#[cfg(test)]
mod tests {
    use mail_parser::{MessageParser, MimeHeaders};

    use super::*;

    const UNSUBSCRIBE: &str = "https://discovery.example/api/notifications/unsubscribe?t=abc.def";
    const ANSWER: &str = "https://discovery.example/coaching?checkin=0193&x=1";

    fn mail() -> CheckInMail {
        CheckInMail {
            to: "ada@example.org".to_owned(),
            message: "Does riding to work still matter to you?".to_owned(),
            quoted_goals: vec![
                "Ride to work <b>daily</b>".to_owned(),
                "Teach my kids & their friends to fix bikes".to_owned(),
            ],
            observation: Some("You rode 3 times last week, \"rain or not\".".to_owned()),
            answer_url: ANSWER.to_owned(),
            unsubscribe_url: UNSUBSCRIBE.to_owned(),
        }
    }

    fn from() -> Mailbox {
        "Discovery <checkins@discovery.example>".parse().unwrap()
    }

    /// The message as it goes on the wire, parsed back.
    fn formatted(mail: &CheckInMail) -> Vec<u8> {
        checkin(mail, &from()).unwrap().formatted()
    }

    #[test]
    fn the_message_has_both_parts_saying_the_same() {
        let raw = formatted(&mail());
        let parsed = MessageParser::default().parse(&raw).unwrap();
        assert_eq!(parsed.text_body_count(), 1);
        assert_eq!(parsed.html_body_count(), 1);
        let root = parsed.root_part();
        assert_eq!(root.content_type().unwrap().ctype(), "multipart");
        assert_eq!(root.content_type().unwrap().subtype(), Some("alternative"));

        // On the wire every line ends in CRLF.
        let text = parsed.body_text(0).unwrap().replace("\r\n", "\n");
        assert!(text.contains("> Ride to work <b>daily</b>\n"), "{text}");
        assert!(text.contains("> Teach my kids & their friends to fix bikes\n"));
        assert!(text.contains("What we noticed: You rode 3 times last week, \"rain or not\"."));
        assert!(text.contains("Does riding to work still matter to you?"));
        assert!(text.contains(ANSWER));

        let html = parsed.body_html(0).unwrap().replace("\r\n", "\n");
        assert!(
            html.contains("<blockquote style=\"white-space: pre-wrap\">Ride to work &lt;b&gt;daily&lt;&#x2f;b&gt;</blockquote>"),
            "{html}"
        );
        assert!(!html.contains("<b>"), "the goal's markup is text");
        assert!(html.contains("Teach my kids &amp; their friends to fix bikes"));
        assert!(html.contains("&quot;rain or not&quot;"));
        assert!(html.contains("Does riding to work still matter to you?"));
        assert!(html.contains(&format!("href=\"{}\"", html_escaped(ANSWER))));
    }

    fn html_escaped(s: &str) -> String {
        html(s).to_string()
    }

    #[test]
    fn the_headers_name_the_sender_the_recipient_and_one_click_unsubscribe() {
        let raw = formatted(&mail());
        let parsed = MessageParser::default().parse(&raw).unwrap();
        let from = parsed.from().unwrap().first().unwrap();
        assert_eq!(from.name(), Some("Discovery"));
        assert_eq!(from.address(), Some("checkins@discovery.example"));
        let to = parsed.to().unwrap().first().unwrap();
        assert_eq!(to.address(), Some("ada@example.org"));
        assert_eq!(parsed.subject(), Some(SUBJECT));
        assert!(parsed.message_id().unwrap().ends_with("@discovery.example"));

        // The exact lines, as a mail program reads them.
        let wire = String::from_utf8(raw).unwrap();
        let headers = &wire[..wire.find("\r\n\r\n").unwrap()];
        assert!(
            headers
                .lines()
                .any(|l| l == format!("List-Unsubscribe: <{UNSUBSCRIBE}>")),
            "{headers}"
        );
        assert!(
            headers
                .lines()
                .any(|l| l == "List-Unsubscribe-Post: List-Unsubscribe=One-Click")
        );
    }

    #[test]
    fn a_check_in_without_goals_or_observation_leaves_those_out() {
        let mut bare = mail();
        bare.quoted_goals.clear();
        bare.observation = None;
        let text = text(&bare);
        assert!(!text.contains("Your goals"));
        assert!(!text.contains("What we noticed"));
        assert!(!html_page(&bare).contains("<blockquote"));
    }

    #[test]
    fn a_multi_line_goal_is_quoted_line_by_line() {
        let mut two_lines = mail();
        two_lines.quoted_goals = vec!["Ride daily.\nEven in winter.".to_owned()];
        assert!(text(&two_lines).contains("> Ride daily.\n> Even in winter.\n"));
        assert!(html_page(&two_lines).contains(">Ride daily.\nEven in winter.</blockquote>"));
    }

    #[test]
    fn a_mailbox_expression_as_the_recipient_is_refused_not_read_as_another_address() {
        for stored in [
            "x<victim@evil.example>",
            "Victim <victim@evil.example>",
            "ada@example.org, victim@evil.example",
            "ada@example.org (Ada)",
        ] {
            let mut bad = mail();
            bad.to = stored.to_owned();
            assert_eq!(
                checkin(&bad, &from()).map(|m| m.envelope().to().to_vec()),
                Err(ComposeError::Recipient),
                "{stored}"
            );
        }
    }

    #[test]
    fn the_envelope_and_to_are_the_bare_address() {
        let message = checkin(&mail(), &from()).unwrap();
        let to: Vec<String> = message
            .envelope()
            .to()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(to, ["ada@example.org"]);
        let wire = String::from_utf8(message.formatted()).unwrap();
        assert!(wire.lines().any(|l| l == "To: ada@example.org"), "{wire}");
    }

    #[test]
    fn an_invalid_recipient_is_refused_without_quoting_it() {
        let mut bad = mail();
        bad.to = "not an address <".to_owned();
        let error = checkin(&bad, &from()).unwrap_err();
        assert_eq!(error, ComposeError::Recipient);
        assert!(!error.to_string().contains("not an address"));
    }
}
