"""What a secret looks like: detect-secrets' plugins where they cover a kind, our own patterns
where they do not (docs/redaction.md lists which is which).

Every pattern is searched over the text of a field; ``find`` gives the spans to replace, each
with its kind (the name a placeholder carries) and the secret value a placeholder is keyed on.
detect-secrets is used for its patterns only (its plugins' ``denylist`` regexes): its scanning
loop works line by line on files, and a record's text is neither.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from detect_secrets.plugins import (
    artifactory,
    aws,
    azure_storage_key,
    basic_auth,
    cloudant,
    discord,
    github_token,
    gitlab_token,
    ibm_cloud_iam,
    ibm_cos_hmac,
    jwt,
    keyword,
    mailchimp,
    npm,
    openai,
    pypi_token,
    sendgrid,
    slack,
    softlayer,
    square_oauth,
    stripe,
    telegram_token,
    twilio,
)

from .telltales import ANCHORED, KEYWORDS, Telltales, anchored, leading_words, lines_with, starts


@dataclass(frozen=True)
class Pattern:
    """One way a kind of secret shows: the regex, the group that is the secret (0: the whole
    match), whether it may be found in text joined across line breaks (tokens; not patterns
    that need the line around them), and where it comes from (``detect-secrets`` or ``ours``)."""

    kind: str
    regex: re.Pattern[str]
    group: int = 0
    joinable: bool = True
    origin: str = "detect-secrets"
    #: the match must not follow a letter, digit or underscore (checked here rather than with a
    #: leading ``\\b``, which would cost the regex its fast literal search)
    left_bound: bool = False
    #: searched only in the lines that hold one of its family's keywords (detect-secrets'
    #: keyword regexes are line patterns, and slow over a whole text)
    per_line: bool = False
    #: a secret pattern's value that is a placeholder (``${TOKEN}``, ``<password>``, ``***``)
    #: or under 4 characters is not taken; a name, an address or the user's own regex is
    secret: bool = True
    #: the words (lower case) a match begins with, when the regex begins with a
    #: case-insensitive choice of them and nothing else: in an ASCII text it is tried only
    #: where one begins (``telltales.starts``), not at every character
    starts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hit:
    start: int
    end: int
    kind: str
    secret: str


def _plugin(kind: str, plugin: Any, index: int, group: int = 0, *, joinable: bool = True) -> Pattern:
    return Pattern(kind, plugin.denylist[index], group, joinable)


def _ours(
    kind: str,
    regex: str,
    group: int = 0,
    flags: int = 0,
    *,
    joinable: bool = True,
    secret: bool = True,
    left_bound: bool = False,
    starts: tuple[str, ...] = (),
) -> Pattern:
    compiled = re.compile(regex, flags)
    return Pattern(kind, compiled, group, joinable, "ours", left_bound=left_bound, secret=secret, starts=starts)


_KEYWORD_GROUPS = keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP

#: Values an assignment or URL gives that are a placeholder, not a secret.
_NOT_SECRET = re.compile(
    r"(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\{\{[^}]*\}\}|%[A-Za-z_]+%|\*+|x+|X+|\.+|null|none|true|false"
    r"|undefined|\[REDACTED[^\]]*\]?.*)",
    re.IGNORECASE,
)

SECRETS: tuple[Pattern, ...] = (
    # ours first where they take a wider span than a plugin's (the whole key block, the header's token)
    _ours(
        "private-key",
        r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----(?:.|\n){0,20000}?"
        r"(?:-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|$)",
        joinable=False,
    ),
    _ours("private-key", r"PuTTY-User-Key-File-\d: [^\n]*(?:\n[^\n]*){0,60}?\nPrivate-MAC: [0-9a-f]+", joinable=False),
    _ours(
        "auth-header",
        r"(?i:authorization|proxy-authorization|x-api-key|api-key|x-auth-token)[\"']?\s*[:=]\s*[\"']?"
        r"(?:(?i:bearer|basic|token|digest)\s+)?([A-Za-z0-9._~+/=:-]{8,})",
        1,
        starts=("authorization", "proxy-authorization", "x-api-key", "api-key", "x-auth-token"),
    ),
    _ours("bearer-token", r"(?i:bearer)\s+([A-Za-z0-9._~+/-]{16,}=*)", 1, left_bound=True),
    _ours("openai-key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}", left_bound=True),
    _ours("anthropic-key", r"sk-ant-(?:api|admin|oat)\d{2}-[A-Za-z0-9_-]{40,}", left_bound=True),
    _ours("google-api-key", r"AIza[0-9A-Za-z_-]{35}", left_bound=True),
    _ours("github-token", r"github_pat_[A-Za-z0-9_]{60,}", left_bound=True),
    _ours("huggingface-token", r"hf_[A-Za-z0-9]{34,}", left_bound=True),
    _ours(
        "aws-secret-key",
        r"(?i:aws_?secret_?(?:access_?)?key)[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        1,
    ),
    _ours(
        "secret-assignment",
        r"(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY"
        r"|CREDENTIALS?|AUTH)[A-Z0-9_]*[ \t]*=[ \t]*[\"']?([^\s\"'#]{6,})",
        1,
    ),
    _ours(
        "url-secret-param",
        r"[?&](?i:access_token|api_?key|apikey|token|secret|client_secret|password|passwd|sig|signature"
        r"|x-amz-signature|x-amz-credential|auth)=([^&\s#\"'<>]{8,})",
        1,
    ),
    # detect-secrets' plugins
    _plugin("aws-access-key", aws.AWSKeyDetector, 0),
    _plugin("aws-secret-key", aws.AWSKeyDetector, 1, 1),
    _plugin("url-password", basic_auth.BasicAuthDetector, 0, 1),
    _plugin("github-token", github_token.GitHubTokenDetector, 0),
    *(_plugin("gitlab-token", gitlab_token.GitLabTokenDetector, i) for i in range(7)),
    _plugin("slack-token", slack.SlackDetector, 0),
    _plugin("slack-webhook", slack.SlackDetector, 1),
    _plugin("stripe-key", stripe.StripeDetector, 0),
    _plugin("openai-key", openai.OpenAIDetector, 0),
    _plugin("jwt", jwt.JwtTokenDetector, 0),
    _plugin("npm-token", npm.NpmDetector, 0, 1),
    _plugin("pypi-token", pypi_token.PypiTokenDetector, 0),
    _plugin("pypi-token", pypi_token.PypiTokenDetector, 1),
    _plugin("sendgrid-key", sendgrid.SendGridDetector, 0),
    _plugin("azure-storage-key", azure_storage_key.AzureStorageKeyDetector, 0),
    _plugin("discord-token", discord.DiscordBotTokenDetector, 0),
    _plugin("telegram-token", telegram_token.TelegramBotTokenDetector, 0),
    _plugin("twilio-key", twilio.TwilioKeyDetector, 0),
    _plugin("twilio-key", twilio.TwilioKeyDetector, 1),
    _plugin("mailchimp-key", mailchimp.MailchimpDetector, 0),
    _plugin("square-oauth", square_oauth.SquareOAuthDetector, 0),
    _plugin("artifactory-token", artifactory.ArtifactoryDetector, 0, joinable=False),
    _plugin("artifactory-token", artifactory.ArtifactoryDetector, 1, joinable=False),
    *(_plugin("cloudant-key", cloudant.CloudantDetector, i, 1, joinable=False) for i in range(4)),
    _plugin("ibm-cloud-key", ibm_cloud_iam.IbmCloudIamDetector, 0, 1, joinable=False),
    _plugin("ibm-cloud-key", ibm_cos_hmac.IbmCosHmacDetector, 0, 1, joinable=False),
    *(_plugin("softlayer-key", softlayer.SoftlayerDetector, i, 1, joinable=False) for i in range(2)),
    *(
        Pattern("secret-keyword", regex, group, False, per_line=True, starts=leading_words(regex))
        for regex, group in _KEYWORD_GROUPS.items()
        if regex.groups >= group
    ),
)


class Detector:
    """The patterns of one policy: secrets always, plus the optional kinds asked for."""

    def __init__(self, extra: Iterable[Pattern] = ()) -> None:
        self.patterns: tuple[Pattern, ...] = (*SECRETS, *extra)
        # user names met as words are looked for in every text (no anchor can say where)
        always = {
            n for n, p in enumerate(self.patterns) if p.kind not in ANCHORED or (p.kind == "user-name" and p.group == 0)
        }
        self._telltales = Telltales(self.patterns, frozenset(always))

    def find(self, text: str, *, joinable_only: bool = False) -> list[Hit]:
        """The secrets in ``text``, without overlaps (the pattern listed first wins)."""
        chosen = self._telltales.chosen(text)
        if not chosen:
            return []
        lowered: str | None = None  # made when a pattern needs it
        hits: list[Hit] = []
        patterns = self.patterns
        whole = [(0, len(text))]
        keyword_lines: list[tuple[int, int]] | None = None
        found_starts: dict[tuple[str, ...], list[int] | None] = {}
        for index in sorted(chosen):  # in the patterns' order: it is their priority
            pattern = patterns[index]
            if joinable_only and not pattern.joinable:
                continue
            spans = whole
            if pattern.per_line:
                if keyword_lines is None:
                    lowered = text.lower() if lowered is None else lowered
                    keyword_lines = lines_with(text, lowered, KEYWORDS)
                spans = keyword_lines
            places: list[int] | None = None
            if pattern.starts:  # where its words begin, when the lower-cased text can say
                if pattern.starts not in found_starts:
                    lowered = text.lower() if lowered is None else lowered
                    found_starts[pattern.starts] = starts(pattern.starts, text, lowered)
                places = found_starts[pattern.starts]
            regex = pattern.regex
            for start, end in spans:
                matches = (
                    regex.finditer(text, start, end) if places is None else anchored(regex, text, places, start, end)
                )
                for match in matches:
                    hit = _hit(pattern, match)
                    if hit is not None:
                        hits.append(hit)
        return _without_overlaps(hits)


def _hit(pattern: Pattern, match: re.Match[str]) -> Hit | None:
    group = pattern.group
    start, end = match.span(group)
    if start < 0:
        return None
    value = match.group(group)
    if pattern.left_bound and start > 0 and (match.string[start - 1].isalnum() or match.string[start - 1] == "_"):
        return None
    if pattern.kind == "artifactory-token":  # the plugin's regex takes its delimiters in
        stripped = value.strip(' \t\n=:"')
        start += value.index(stripped) if stripped else 0
        end = start + len(stripped)
        value = stripped
    if "[REDACTED:" in value or not value:
        return None
    if pattern.secret and (len(value) < 4 or _NOT_SECRET.fullmatch(value)):
        return None
    if pattern.kind in _BY_CONTEXT and not _secret_shaped(value):
        return None
    return Hit(start, end, pattern.kind, value)


#: Kinds found by what stands before the value (a name, a header, a parameter), not by the
#: value's own form: the value must look like a secret too (docs/redaction.md, False positives).
_BY_CONTEXT = frozenset({"secret-keyword", "secret-assignment", "auth-header", "bearer-token", "url-secret-param"})
_CODE = re.compile(r"[()`;]|\$\{|\{\{|REDACTED|process\.env|os\.environ|\.\.\.|…", re.IGNORECASE)


def _secret_shaped(value: str) -> bool:
    """At least 8 characters, no space, not code (a call, an expression, a template), and
    letters with digits or both cases: ``admin123`` and ``Xk29fLq0`` are taken; ``proxy-handled``,
    ``process.env.API_KEY;``, ``${TOKEN}`` and ``10000`` are not."""
    if len(value) < 8 or any(c.isspace() for c in value) or _CODE.search(value):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    return (letters and digits) or (any(c.islower() for c in value) and any(c.isupper() for c in value))


def _without_overlaps(hits: list[Hit]) -> list[Hit]:
    """Hits come in the patterns' order, which is their priority: a later hit that overlaps a
    kept one is left out (the private key block before the plugin's header line, a URL's
    password before an e-mail address)."""
    if len(hits) < 2:
        return hits
    kept: list[Hit] = []
    for hit in hits:
        if not any(k.start < hit.end and hit.start < k.end for k in kept):
            kept.append(hit)
    kept.sort(key=lambda h: h.start)
    return kept


def optional_patterns(
    *, paths: bool = False, emails: bool = False, user_names: Iterable[str] = (), custom: Iterable[str] = ()
) -> Iterator[Pattern]:
    """The kinds a policy may add: home folders and user names, e-mail addresses, the user's
    own regexes (``pattern-1``, ``pattern-2`` … in the order given)."""
    if paths:
        yield _ours(
            "user-name",
            # Termux's home is .../com.termux/files/home itself: no account name follows it
            r"(?:(?<!com\.termux/files)/home/|/Users/|/var/home/|[A-Za-z]:[\\/]+Users[\\/]+|\\\\Users\\\\)"
            r"(?![\[.$%{<~])([^/\\\s\"'`<>:|*?,;()]{1,64})",
            1,
            joinable=False,
            secret=False,
        )
        for name in user_names:
            if len(name) >= 3 and name.lower() not in _COMMON_USERS:
                yield _ours(
                    "user-name",
                    # the name first, then the character before it asked by a lookbehind over
                    # both: a regex that begins with its literal keeps the fast search for it
                    rf"{re.escape(name)}(?<![A-Za-z0-9_.-]{re.escape(name)})(?![A-Za-z0-9_-])",
                    joinable=False,
                    secret=False,
                )
    if emails:
        yield _ours(
            "email",
            r"(?<![A-Za-z0-9._%+-])(?!git@)[A-Za-z0-9._%+-]{0,63}[A-Za-z0-9_%+-]@(?:[A-Za-z0-9-]{1,63}\.)+"
            r"(?!(?:png|jpe?g|gif|svg|webp|js|ts|py|json|md)\b)[A-Za-z]{2,24}\b(?![/@\w-])",
            joinable=False,
            secret=False,
        )
    for number, regex in enumerate(custom, 1):
        yield _ours(f"pattern-{number}", regex, joinable=False, secret=False)


#: Account names too common to redact wherever they appear as a word (a path still hides them).
_COMMON_USERS = frozenset({"root", "user", "admin", "runner", "ubuntu", "ec2-user", "node", "app", "dev", "test"})
