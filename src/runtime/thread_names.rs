//! The names of a task's threads. Linux keeps 15 bytes of a thread's name, and that is what
//! `top`, gdb, `/proc` and a JVM attaching the thread show; so a name leads with the flow
//! (`A->B cycle`) and, when the flow is too long for that, with a short id of it (`mm2 9f3a
//! cycle`), which the task's start line pairs with the flow.

/// The bytes of a thread's name the kernel keeps.
pub(crate) const KEPT_BYTES: usize = 15;

/// The thread names of one flow.
#[derive(Clone, Debug)]
pub(crate) struct ThreadNames {
    flow: String,
    short_id: String,
}

impl ThreadNames {
    /// The names for the flow from `source` to `target` (the clusters' aliases).
    pub(crate) fn new(source: &str, target: &str) -> Self {
        let flow = format!("{source}->{target}");
        let short_id = format!("{:04x}", short_hash(&flow));
        ThreadNames { flow, short_id }
    }

    /// The name of the thread doing `role`: `A->B role` when that fits in [`KEPT_BYTES`], else
    /// `mm2 <short id> role`.
    pub(crate) fn of(&self, role: &str) -> String {
        let full = format!("{} {role}", self.flow);
        if full.len() <= KEPT_BYTES {
            full
        } else {
            format!("mm2 {} {role}", self.short_id)
        }
    }

    /// The line that pairs the short id with the flow, when some role's name needs the id.
    pub(crate) fn legend(&self, roles: &[&str]) -> Option<String> {
        roles
            .iter()
            .any(|role| self.of(role).starts_with("mm2 "))
            .then(|| {
                format!(
                    "flow `{}`: its threads are named `mm2 {} <role>` ({})",
                    self.flow,
                    self.short_id,
                    roles.join(", ")
                )
            })
    }
}

/// 16 bits of FNV-1a over the flow's bytes: stable across processes and restarts.
fn short_hash(text: &str) -> u16 {
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    ((h >> 16) ^ (h & 0xffff)) as u16
}

/// Every role a task's threads have.
pub(crate) const ROLES: [&str; 5] = ["cycle", "stats", "tail", "coord", "stream"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_flow_leads_every_name_and_a_long_one_uses_its_stable_id() {
        let short = ThreadNames::new("A", "B");
        for role in ROLES {
            assert_eq!(short.of(role), format!("A->B {role}"));
        }
        assert_eq!(short.legend(&ROLES), None);
        let long = ThreadNames::new("primary", "backup");
        let again = ThreadNames::new("primary", "backup");
        for role in ROLES {
            let name = long.of(role);
            assert!(name.len() <= KEPT_BYTES, "{name}");
            assert!(name.starts_with("mm2 ") && name.ends_with(role), "{name}");
            assert_eq!(name, again.of(role), "stable");
        }
        assert_ne!(
            long.of("cycle"),
            ThreadNames::new("backup", "primary").of("cycle")
        );
        let legend = long.legend(&ROLES).unwrap();
        assert!(
            legend.contains("primary->backup") && legend.contains(&long.of("")[..8]),
            "{legend}"
        );
    }
}
