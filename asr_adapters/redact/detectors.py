# Whole, over 400 lines: the secret kinds and their patterns read best as one table (docs/redaction.md lists it).
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
) -> Pattern:
    return Pattern(kind, re.compile(regex, flags), group, joinable, "ours", left_bound=left_bound, secret=secret)


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
        Pattern("secret-keyword", regex, group, False, per_line=True)
        for regex, group in _KEYWORD_GROUPS.items()
        if regex.groups >= group
    ),
)

#: What a text must hold for a family of kinds to be looked for: substrings (the second
#: tuple: in the text lower-cased), each found by one fast search, so that most text of a
#: session, which holds none, costs a few dozen substring searches and no regex. A kind not
#: listed always runs (a few single regexes, and the user's own patterns).
_FAMILIES: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    # the patterns whose regex is not a fast search: a literal, then a regex that is one
    ((":",), (), ("telegram-token",)),
    ((".",), (), ("discord-token",)),
    (("-us",), (), ("mailchimp-key",)),
    (("AC", "SK"), (), ("twilio-key",)),
    (("PRIVATE KEY", "PuTTY-User-Key"), (), ("private-key",)),
    # detect-secrets' keyword list, in the lower-cased text
    (
        (),
        (
            "password", "passwd", "pwd", "secret", "api_key", "apikey", "auth_key", "authkey", "service_key",
            "servicekey", "account_key", "accountkey", "db_key", "dbkey", "database_key", "privkey", "priv_key",
            "private_key", "privatekey", "client_key", "clientkey", "db_pass", "dbpass", "database_pass",
            "key_pass", "keypass", "contrase",
        ),
        ("secret-keyword",),
    ),
    (
        ("PASSWORD", "PASSWD", "SECRET", "TOKEN", "APIKEY", "API_KEY", "PRIVATE_KEY", "PRIVATEKEY", "ACCESS_KEY",
         "ACCESSKEY", "CREDENTIAL", "AUTH"),
        (),
        ("secret-assignment",),
    ),
    ((), ("authorization", "api-key", "x-auth-token"), ("auth-header",)),
    ((), ("aws_secret", "awssecret", "aws-secret"), ("aws-secret-key",)),
    ((), ("aws",), ("aws-secret-key",)),
    (("=",), (), ("url-secret-param",)),
    (("_authToken",), (), ("npm-token",)),
    ((), ("bearer",), ("bearer-token",)),
    (("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), (), ("aws-access-key",)),
    (("://",), (), ("url-password",)),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), (), ("github-token",)),
    (
        ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-",
         "GR1348941"),
        (),
        ("gitlab-token",),
    ),
    ((), ("xox",), ("slack-token",)),
    (("hooks.slack.com",), (), ("slack-webhook",)),
    (("k_live_",), (), ("stripe-key",)),
    (("sk-",), (), ("openai-key", "anthropic-key")),
    (("AIza",), (), ("google-api-key",)),
    (("hf_",), (), ("huggingface-token",)),
    (("eyJ",), (), ("jwt",)),
    (("pypi-AgE",), (), ("pypi-token",)),
    (("SG.",), (), ("sendgrid-key",)),
    (("AccountKey=",), (), ("azure-storage-key",)),
    (("sq0csp-",), (), ("square-oauth",)),
    (("AKC", "AP"), (), ("artifactory-token",)),
    # detect-secrets' IBM, Cloudant and SoftLayer plugins: where the text names the service
    ((), ("cloudant",), ("cloudant-key",)),
    ((), ("softlayer",), ("softlayer-key",)),
    ((), ("ibm", "iam_", "iam-"), ("ibm-cloud-key",)),
    (("/home/", "/Users/", "Users\\"), (), ("user-name",)),
    (("@",), (), ("email",)),
)  # fmt: skip
_ANCHORED = frozenset(kind for _literal, _folded, kinds in _FAMILIES for kind in kinds)
#: a second test for the families whose literal is common (regexes that start with a literal)
_PROBE_REGEX = {
    "artifactory-token": re.compile(r"AKC[a-zA-Z0-9]{10}|AP[\dA-F][a-zA-Z0-9]{8}"),
    "mailchimp-key": re.compile(r"-us\d"),
    "url-secret-param": re.compile(r"[?&][A-Za-z_-]{2,24}="),
    "telegram-token": re.compile(r":[0-9A-Za-z_-]{35}"),
    "discord-token": re.compile(r"\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"),
}


class Detector:
    """The patterns of one policy: secrets always, plus the optional kinds asked for."""

    def __init__(self, extra: Iterable[Pattern] = ()) -> None:
        self.patterns: tuple[Pattern, ...] = (*SECRETS, *extra)
        # user names met as words are looked for in every text (no anchor can say where)
        always = {
            n
            for n, p in enumerate(self.patterns)
            if p.kind not in _ANCHORED or (p.kind == "user-name" and p.group == 0)
        }
        self._always = frozenset(always)
        families = [
            (
                literal,
                folded,
                frozenset(n for n, p in enumerate(self.patterns) if p.kind in kinds and n not in always),
                _PROBE_REGEX.get(kinds[0]),
            )
            for literal, folded, kinds in _FAMILIES
        ]
        families = [family for family in families if family[2]]  # kinds this policy has
        self._families = families
        # every probe of every family in one regex (a trie), searched once per text (and once
        # more, lower-cased, for the folded ones); what it finds names the families (and those
        # of the probes it begins with)
        literal = {probe for family in families for probe in family[0]}
        folded = {probe for family in families for probe in family[1]}
        self._literal_search = re.compile(_trie(sorted(literal)))
        self._folded_search = re.compile(_trie(sorted(folded))) if folded else None
        self._literal_families = _owners(literal, [family[0] for family in families])
        self._folded_families = _owners(folded, [family[1] for family in families])
        self._keywords = next(folded for _l, folded, kinds in _FAMILIES if kinds == ("secret-keyword",))

    def find(self, text: str, *, joinable_only: bool = False) -> list[Hit]:
        """The secrets in ``text``, without overlaps (the pattern listed first wins)."""
        met: set[int] = set()
        for found in self._literal_search.findall(text):
            met |= self._literal_families[found]
        if self._folded_search is not None:
            for found in self._folded_search.findall(text.lower()):
                met |= self._folded_families[found]
        if not met and not self._always:
            return []
        chosen = set(self._always)
        lowered: str | None = None
        for family in met:
            _literal, _folded, members, probe_regex = self._families[family]
            if probe_regex is None or probe_regex.search(text):
                chosen |= members
        hits: list[Hit] = []
        patterns = self.patterns
        for index in sorted(chosen):  # in the patterns' order: it is their priority
            pattern = patterns[index]
            if joinable_only and not pattern.joinable:
                continue
            if pattern.per_line:
                if lowered is None:
                    lowered = text.lower()
                spans = _lines_with(text, lowered, self._keywords)
            else:
                spans = [(0, len(text))]
            for start, end in spans:
                for match in pattern.regex.finditer(text, start, end):
                    hit = _hit(pattern, match)
                    if hit is not None:
                        hits.append(hit)
        return _without_overlaps(hits)


def _trie(words: list[str]) -> str:
    """A regex matching any of ``words`` (longest first where one begins another), shaped as
    a trie so that the regex engine tests one character per position where none begins."""
    if not words:
        return ""
    heads: dict[str, list[str]] = {}
    for word in words:
        heads.setdefault(word[0], []).append(word[1:])
    branches = []
    for head, tails in sorted(heads.items()):
        rest = [t for t in tails if t]
        inner = _trie(rest) if rest else ""
        optional = "" in tails
        if inner:
            branches.append(re.escape(head) + (f"(?:{inner})?" if optional else f"(?:{inner})"))
        else:
            branches.append(re.escape(head))
    return "|".join(branches)


def _owners(words: set[str], families: list[tuple[str, ...]]) -> dict[str, frozenset[int]]:
    """For each probe: the families of every probe it holds (the trie takes the longest
    probe where several begin, ``ACCA`` where ``AC`` is one too, and a match is not searched
    again: ``api_key`` holds ``key``)."""
    owners: dict[str, set[int]] = {word: set() for word in words}
    for n, probes in enumerate(families):
        for probe in probes:
            for word in words:
                if probe in word:
                    owners[word].add(n)
    return {word: frozenset(found) for word, found in owners.items()}


def _lines_with(text: str, lowered: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    """The lines of ``text`` that hold one of ``words`` (in ``lowered``, its lower-cased copy
    of the same length), each once, in order."""
    spans = set()
    for word in words:
        at = lowered.find(word)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            spans.add((start, len(text) if end < 0 else end))
            at = lowered.find(word, (len(text) if end < 0 else end))
    return sorted(spans)


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
                    "user-name", rf"(?<![A-Za-z0-9_.-]){re.escape(name)}(?![A-Za-z0-9_-])", joinable=False, secret=False
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
