//! Renders a chat into the prompt text the model was trained on, from the Jinja chat template
//! stored in the GGUF (`tokenizer.chat_template`), with ChatML as the fallback.

use minijinja::value::{Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind, State, context};

use crate::ChatMessage;

/// Everything a template may refer to besides the messages.
#[derive(Debug, Clone, Default)]
pub(crate) struct TemplateTokens {
    /// The beginning-of-sequence token's text (`bos_token`), empty if the model has none.
    pub bos: String,
    /// The end-of-sequence token's text (`eos_token`), empty if the model has none.
    pub eos: String,
}

/// A compiled chat template, or ChatML when the model has none (or it does not compile).
pub(crate) struct ChatTemplate {
    env: Option<Environment<'static>>,
    tokens: TemplateTokens,
}

const TEMPLATE_NAME: &str = "chat";

impl ChatTemplate {
    /// Compile `source`; a template that does not compile is logged and replaced by ChatML.
    pub fn new(source: Option<&str>, tokens: TemplateTokens) -> ChatTemplate {
        let env = source.and_then(|src| match compile(src) {
            Ok(env) => Some(env),
            Err(e) => {
                tracing::warn!("chat template does not compile ({e}); using ChatML");
                None
            }
        });
        ChatTemplate { env, tokens }
    }

    /// Whether the model's own template is in use (false = ChatML fallback).
    #[cfg(test)]
    pub fn has_model_template(&self) -> bool {
        self.env.is_some()
    }

    /// The prompt for `messages`, ending where the assistant's answer begins.
    pub fn render(&self, messages: &[ChatMessage]) -> String {
        if let Some(env) = &self.env {
            match render_with(env, messages, &self.tokens) {
                Ok(text) => return text,
                Err(e) => tracing::warn!("chat template failed to render ({e}); using ChatML"),
            }
        }
        render_chatml(messages)
    }
}

fn compile(source: &str) -> Result<Environment<'static>, Error> {
    let mut env = Environment::new();
    // Hugging Face renders chat templates with these Jinja2 settings.
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.add_function("raise_exception", raise_exception);
    env.add_function("strftime_now", strftime_now);
    env.set_unknown_method_callback(python_string_methods);
    env.add_template_owned(TEMPLATE_NAME, source.to_string())?;
    Ok(env)
}

fn render_with(env: &Environment<'static>, messages: &[ChatMessage], tokens: &TemplateTokens) -> Result<String, Error> {
    let messages: Vec<Value> =
        messages.iter().map(|m| context! { role => m.role.as_str(), content => m.content.as_str() }).collect();
    env.get_template(TEMPLATE_NAME)?.render(context! {
        messages => messages,
        add_generation_prompt => true,
        bos_token => tokens.bos.as_str(),
        eos_token => tokens.eos.as_str(),
    })
}

/// ChatML, the format of SmolLM2, Qwen2 and many others.
pub(crate) fn render_chatml(messages: &[ChatMessage]) -> String {
    let mut out = String::new();
    for m in messages {
        out.push_str("<|im_start|>");
        out.push_str(m.role.as_str());
        out.push('\n');
        out.push_str(&m.content);
        out.push_str("<|im_end|>\n");
    }
    out.push_str("<|im_start|>assistant\n");
    out
}

/// Templates call `raise_exception('...')` to reject conversations they cannot format.
fn raise_exception(message: String) -> Result<Value, Error> {
    Err(Error::new(ErrorKind::InvalidOperation, message))
}

/// Templates that print today's date call `strftime_now('%d %b %Y')`.
fn strftime_now(format: String) -> String {
    chrono::Local::now().format(&format).to_string()
}

/// The few Python string and dict methods chat templates use (`content.strip()`,
/// `role.startswith('a')`, `message.items()`), which Jinja2 has and minijinja lacks.
fn python_string_methods(state: &State, value: &Value, method: &str, args: &[Value]) -> Result<Value, Error> {
    let arg_str = |i: usize| args.get(i).and_then(|a| a.as_str().map(str::to_string));
    if value.kind() == ValueKind::Map {
        return match method {
            "items" => state.apply_filter("items", std::slice::from_ref(value)),
            "get" => {
                let key = args.first().cloned().unwrap_or(Value::UNDEFINED);
                let found = value.get_item(&key)?;
                Ok(if found.is_undefined() { args.get(1).cloned().unwrap_or(Value::from(())) } else { found })
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        };
    }
    let Some(s) = value.as_str() else { return Err(Error::from(ErrorKind::UnknownMethod)) };
    let chars = arg_str(0);
    let trim_set = |c: char| chars.as_deref().map_or(c.is_whitespace(), |set| set.contains(c));
    let out = match method {
        "strip" => Value::from(s.trim_matches(trim_set)),
        "lstrip" => Value::from(s.trim_start_matches(trim_set)),
        "rstrip" => Value::from(s.trim_end_matches(trim_set)),
        "lower" => Value::from(s.to_lowercase()),
        "upper" => Value::from(s.to_uppercase()),
        "startswith" => Value::from(arg_str(0).is_some_and(|p| s.starts_with(p.as_str()))),
        "endswith" => Value::from(arg_str(0).is_some_and(|p| s.ends_with(p.as_str()))),
        "replace" => match (arg_str(0), arg_str(1)) {
            (Some(from), Some(to)) => Value::from(s.replace(from.as_str(), &to)),
            _ => return Err(Error::new(ErrorKind::MissingArgument, "replace(old, new)")),
        },
        "split" => {
            let parts: Vec<Value> = match arg_str(0) {
                Some(sep) => s.split(sep.as_str()).map(Value::from).collect(),
                None => s.split_whitespace().map(Value::from).collect(),
            };
            Value::from(parts)
        }
        _ => return Err(Error::from(ErrorKind::UnknownMethod)),
    };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SmolLM2-135M-Instruct's template, as stored in its GGUF.
    const SMOLLM2: &str = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

    fn tokens() -> TemplateTokens {
        TemplateTokens { bos: "<|im_start|>".into(), eos: "<|im_end|>".into() }
    }

    #[test]
    fn smollm2_template_renders_chatml() {
        let t = ChatTemplate::new(Some(SMOLLM2), tokens());
        assert!(t.has_model_template());
        let out = t.render(&[ChatMessage::system("Be brief."), ChatMessage::user("What is MQTT?")]);
        assert_eq!(
            out,
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nWhat is MQTT?<|im_end|>\n<|im_start|>assistant\n"
        );
        assert_eq!(out, render_chatml(&[ChatMessage::system("Be brief."), ChatMessage::user("What is MQTT?")]));
    }

    #[test]
    fn smollm2_template_adds_default_system_prompt() {
        let t = ChatTemplate::new(Some(SMOLLM2), tokens());
        let out = t.render(&[ChatMessage::user("Hi")]);
        assert!(out.starts_with("<|im_start|>system\nYou are a helpful AI assistant named SmolLM"), "{out}");
        assert!(out.ends_with("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"), "{out}");
    }

    #[test]
    fn missing_or_broken_templates_fall_back_to_chatml() {
        let msgs = [ChatMessage::user("Hi")];
        let expected = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";
        assert_eq!(ChatTemplate::new(None, tokens()).render(&msgs), expected);
        let broken = ChatTemplate::new(Some("{% for m in messages %}"), tokens());
        assert!(!broken.has_model_template());
        assert_eq!(broken.render(&msgs), expected);
        let raising = ChatTemplate::new(Some("{{ raise_exception('no users here') }}"), tokens());
        assert!(raising.has_model_template());
        assert_eq!(raising.render(&msgs), expected);
    }

    #[test]
    fn helpers_and_python_methods_work() {
        let src = "{{ bos_token }}{% for m in messages %}[{{ m['role'].upper() }}:{{ m['content'].strip() }}]{% endfor %}\
                   {% if messages[0]['content'].startswith(' x') %}!{% endif %}{{ strftime_now('%Y')|length }}{{ eos_token }}";
        let t = ChatTemplate::new(Some(src), tokens());
        assert_eq!(t.render(&[ChatMessage::user(" x y ")]), "<|im_start|>[USER:x y]!4<|im_end|>");
    }

    #[test]
    fn trim_blocks_like_jinja2() {
        let src = "{% for m in messages %}\n  {% if true %}\n{{ m['content'] }}\n  {% endif %}\n{% endfor %}";
        let t = ChatTemplate::new(Some(src), tokens());
        assert_eq!(t.render(&[ChatMessage::user("a"), ChatMessage::user("b")]), "a\nb\n");
    }
}
