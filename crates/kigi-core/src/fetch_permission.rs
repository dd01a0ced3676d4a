//! Whether a `web_fetch` may run. A fetch sends data to a host the model chose (a URL read in
//! a file or a page can carry the workspace's contents out), so, although it changes nothing
//! here, it asks in `default`, `acceptEdits` and plan mode, is refused in `dontAsk`, and runs
//! without asking only under an allow rule or in `bypassPermissions`.
//!
//! The rule: a loopback, private or link-local host is never fetched without an allow rule
//! that names its domain, in any mode (a page telling the model to fetch
//! `http://127.0.0.1:8080/admin` must not reach it). Names are judged here by their literal
//! form (`localhost`, an IP); the tool judges the addresses a name resolves to with
//! [`RuleHosts`], the same rules.

use std::sync::Arc;

use kigi_agent::PermissionMode;
use kigi_agent::permissions::{
    CallInput, CallSubject, CompiledRules, RuleVerdict, SourcedRule, Specifier,
};
use kigi_protocol::ToolKind;
use kigi_tools::{PrivateHostAllowance, is_private_host};

use crate::permission::Approval;

/// The decision for a `web_fetch` call the rules gave `verdict` about (deny rules already
/// refused it).
pub fn decide_fetch(
    mode: PermissionMode,
    name: &str,
    subject: &CallSubject<'_>,
    verdict: RuleVerdict<'_>,
) -> Approval {
    let host = match &subject.input {
        CallInput::Host(host) => host.as_str(),
        // No http(s) URL: the tool refuses it without sending anything.
        _ => return Approval::Allow,
    };
    let names_domain = matches!(verdict, RuleVerdict::Allow(rule) if names_a_domain(rule));
    if is_private_host(host) && !names_domain {
        return Approval::Refuse(format!(
            "`{name}` was not run: {host} is a loopback, private or link-local address; fetching it needs an explicit allow rule: WebFetch(domain:{host}) in [permissions] allow or --allowedTools"
        ));
    }
    let rule_hint = format!(
        "allow the host with WebFetch(domain:{host}) in --allowedTools or [permissions] allow"
    );
    match (verdict, mode) {
        (RuleVerdict::Allow(_), _) | (RuleVerdict::NoRule, PermissionMode::BypassPermissions) => {
            Approval::Allow
        }
        (RuleVerdict::Ask(rule), PermissionMode::DontAsk) => Approval::Refuse(format!(
            "`{name}` was not run: the {rule} asks for approval, and permission mode dontAsk never asks."
        )),
        (RuleVerdict::Ask(rule), _) => Approval::Ask {
            refusal: format!(
                "`{name}` was not run: the {rule} needs a person's approval, and nobody can approve in this session."
            ),
        },
        (_, PermissionMode::DontAsk) => Approval::Refuse(format!(
            "`{name}` was not run: permission mode dontAsk refuses fetches no allow rule permits ({rule_hint})."
        )),
        _ => Approval::Ask {
            refusal: format!(
                "`{name}` was not run: fetching {host} needs approval, and nobody can approve in this session ({rule_hint}; bypassPermissions allows public hosts)."
            ),
        },
    }
}

fn names_a_domain(rule: &SourcedRule) -> bool {
    matches!(rule.rule.specifier, Some(Specifier::Domain(_)))
}

/// The session's rules as the fetch tool's judge of private addresses: a host may be fetched
/// at one when an allow rule names its domain (and no deny or ask rule speaks about it).
#[derive(Debug, Clone)]
pub struct RuleHosts(pub Arc<CompiledRules>);

impl PrivateHostAllowance for RuleHosts {
    fn allows(&self, host: &str) -> bool {
        let subject = CallSubject {
            canonical: "web_fetch",
            kind: ToolKind::WebFetch,
            input: CallInput::Host(host.to_owned()),
        };
        matches!(self.0.evaluate(&subject), RuleVerdict::Allow(rule) if names_a_domain(rule))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kigi_agent::permissions::{PathAnchors, PermissionRules, RuleEffect, RuleSource};

    fn rules(allow: &[&str], ask: &[&str]) -> CompiledRules {
        let mut rules = PermissionRules::default();
        let source = RuleSource::Flag("--test");
        let list = |texts: &[&str]| texts.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
        rules
            .add(RuleEffect::Allow, &list(allow), &source, "allow")
            .unwrap();
        rules
            .add(RuleEffect::Ask, &list(ask), &source, "ask")
            .unwrap();
        rules.compile(&PathAnchors {
            home: None,
            project_root: "/nonexistent-repo".into(),
            cwd: "/nonexistent-repo".into(),
        })
    }

    fn decide(mode: PermissionMode, rules: &CompiledRules, host: &str) -> Approval {
        let subject = CallSubject {
            canonical: "web_fetch",
            kind: ToolKind::WebFetch,
            input: CallInput::Host(host.into()),
        };
        decide_fetch(mode, "web_fetch", &subject, rules.evaluate(&subject))
    }

    #[test]
    fn a_public_fetch_asks_unless_a_rule_or_bypass_allows_it() {
        let none = rules(&[], &[]);
        for mode in [
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::Plan,
        ] {
            let ask = decide(mode, &none, "example.com");
            assert!(
                matches!(&ask, Approval::Ask { refusal } if refusal.contains("WebFetch(domain:example.com)")),
                "{mode:?}: {ask:?}"
            );
        }
        assert!(matches!(
            decide(PermissionMode::DontAsk, &none, "example.com"),
            Approval::Refuse(reason) if reason.contains("WebFetch(domain:example.com)")
        ));
        assert_eq!(
            decide(PermissionMode::BypassPermissions, &none, "example.com"),
            Approval::Allow
        );
        let allowed = rules(&["WebFetch(domain:example.com)"], &[]);
        for mode in [
            PermissionMode::Default,
            PermissionMode::DontAsk,
            PermissionMode::Plan,
        ] {
            assert_eq!(decide(mode, &allowed, "docs.example.com"), Approval::Allow);
        }
        assert!(matches!(
            decide(PermissionMode::Default, &allowed, "example.org"),
            Approval::Ask { .. }
        ));
    }

    #[test]
    fn a_private_host_needs_a_rule_naming_it_even_in_bypass_mode() {
        let none = rules(&[], &[]);
        for host in [
            "127.0.0.1",
            "localhost",
            "10.0.0.8",
            "::1",
            "169.254.169.254",
        ] {
            let refused = decide(PermissionMode::BypassPermissions, &none, host);
            assert_eq!(
                refused,
                Approval::Refuse(format!(
                    "`web_fetch` was not run: {host} is a loopback, private or link-local address; fetching it needs an explicit allow rule: WebFetch(domain:{host}) in [permissions] allow or --allowedTools"
                ))
            );
        }
        // Allowing every fetch is not naming a private host.
        let blanket = rules(&["WebFetch"], &[]);
        assert!(matches!(
            decide(PermissionMode::Default, &blanket, "127.0.0.1"),
            Approval::Refuse(_)
        ));
        assert_eq!(
            decide(PermissionMode::Default, &blanket, "example.com"),
            Approval::Allow
        );
        let named = rules(&["WebFetch(domain:127.0.0.1)"], &[]);
        assert_eq!(
            decide(PermissionMode::DontAsk, &named, "127.0.0.1"),
            Approval::Allow
        );
        assert!(RuleHosts(Arc::new(named)).allows("127.0.0.1"));
        assert!(!RuleHosts(Arc::new(blanket)).allows("127.0.0.1"));
    }

    #[test]
    fn an_ask_rule_asks_and_dont_ask_refuses_it() {
        let ask = rules(&[], &["WebFetch(domain:example.com)"]);
        assert!(matches!(
            decide(PermissionMode::BypassPermissions, &ask, "example.com"),
            Approval::Ask { .. }
        ));
        assert!(matches!(
            decide(PermissionMode::DontAsk, &ask, "example.com"),
            Approval::Refuse(_)
        ));
    }
}
