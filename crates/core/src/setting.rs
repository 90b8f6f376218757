//! Settings with a fixed set of values, shared by the crates that interpret them and the CLI that
//! reads them from flags, `QA_*` variables and `qa.toml`.

/// A setting with a fixed set of values: parsed case-insensitively from qa.toml, `QA_*` and flags,
/// written (and serialized) in lower case.
#[macro_export]
macro_rules! setting_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value's name as written in settings (lower case).
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::setting::UnknownValue;
            fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
                let wanted = s.trim().to_ascii_lowercase();
                Self::ALL.iter().copied().find(|v| v.as_str() == wanted).ok_or_else(|| $crate::setting::UnknownValue {
                    value: s.trim().to_string(),
                    allowed: Self::ALL.iter().map(|v| v.as_str()).collect(),
                })
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                let text = <String as ::serde::Deserialize>::deserialize(d)?;
                text.parse().map_err(::serde::de::Error::custom)
            }
        }
    };
}

/// A value that names none of a setting's values (the error of a [`setting_enum!`] type's
/// `FromStr`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{value}' is not one of {}", allowed.join(", "))]
pub struct UnknownValue {
    /// The value as given, trimmed.
    pub value: String,
    /// The setting's values.
    pub allowed: Vec<&'static str>,
}

/// The message, for code that collects setting errors as text.
impl From<UnknownValue> for String {
    fn from(e: UnknownValue) -> String {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    crate::setting_enum! {
        /// A test setting.
        Mode { Fast => "fast", Exact => "exact" }
    }

    #[test]
    fn values_parse_case_insensitively_and_unknown_ones_name_the_choices() {
        assert_eq!(" FAST ".parse::<Mode>(), Ok(Mode::Fast));
        let err = "slow ".parse::<Mode>().unwrap_err();
        assert_eq!(err.to_string(), "'slow' is not one of fast, exact");
        assert_eq!(String::from(err), "'slow' is not one of fast, exact");
        assert_eq!(serde_json::to_string(&Mode::Exact).unwrap(), "\"exact\"");
    }
}
