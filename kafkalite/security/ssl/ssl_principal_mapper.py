"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/ssl/SslPrincipalMapper.java

Classes: SslPrincipalMapper, NoMatchingRule.

``ssl.principal.mapping.rules`` (KIP-371): a comma-separated list of ``DEFAULT`` and
``RULE:pattern/replacement/[LU]`` entries, tried in order against the certificate's distinguished name;
the first rule whose pattern matches the whole name gives the principal name (optionally lower- or
upper-cased); ``DEFAULT`` keeps the name as it is. No rule matching is an error (the connection fails).
Python note: patterns are Python regular expressions (Java's syntax for the common cases), and ``$n`` in
a replacement is the n-th group, as in Java's ``replaceAll``; a ``$n`` beyond the groups is literal.
"""
from __future__ import annotations

import re

DEFAULT_SSL_PRINCIPAL_MAPPING_RULES = "DEFAULT"

_RULE_PATTERN = r"(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)"
_RULE_SPLITTER = re.compile(r"\s*(" + _RULE_PATTERN + r")\s*(,\s*|$)")
_RULE_PARSER = re.compile(_RULE_PATTERN)
_BACK_REFERENCE = re.compile(r"\$(\d+)")


class NoMatchingRule(OSError):
    """Kafka: SslPrincipalMapper.NoMatchingRule."""


class _Rule:
    """Kafka: SslPrincipalMapper.Rule."""

    def __init__(self, pattern: str | None = None, replacement: str | None = None,
                 to_lower_case: bool = False, to_upper_case: bool = False):
        self.is_default = pattern is None
        self.pattern = None if pattern is None else re.compile(pattern)
        self.replacement = replacement
        self.to_lower_case = to_lower_case
        self.to_upper_case = to_upper_case

    def _python_replacement(self) -> str:
        groups = self.pattern.groups

        def one(m: re.Match) -> str:
            digits = m.group(1)
            index = int(digits)
            # $123 with fewer groups is read as $12 then $1 followed by literal digits (Java's rule)
            while index > groups and index >= 10:
                index //= 10
                digits = digits[:-1]
            if digits.startswith("0"):
                return "\\g<0>" + m.group(1)[1:]
            if index > groups:
                return m.group(0)
            return "\\g<" + str(index) + ">" + m.group(1)[len(digits):]

        escaped = self.replacement.replace("\\", "\\\\")
        return _BACK_REFERENCE.sub(one, escaped)

    # Kafka: Rule.apply
    def apply(self, distinguished_name: str) -> str | None:
        if self.is_default:
            return distinguished_name
        if not self.pattern.fullmatch(distinguished_name):
            return None
        result = self.pattern.sub(self._python_replacement(), distinguished_name)
        if self.to_lower_case:
            result = result.lower()
        elif self.to_upper_case:
            result = result.upper()
        return result

    def __str__(self) -> str:
        if self.is_default:
            return "DEFAULT"
        case = "/L" if self.to_lower_case else "/U" if self.to_upper_case else ""
        return f"RULE:{self.pattern.pattern}/{self.replacement}{case}"


class SslPrincipalMapper:
    """Kafka: SslPrincipalMapper."""

    def __init__(self, ssl_principal_mapping_rules: str | None = None):
        self.rules = self._parse_rules(self._split_rules(ssl_principal_mapping_rules))

    # Kafka: SslPrincipalMapper.fromRules
    @staticmethod
    def from_rules(rules: str | None) -> "SslPrincipalMapper":
        return SslPrincipalMapper(rules)

    # Kafka: SslPrincipalMapper.splitRules
    @staticmethod
    def _split_rules(rules: str | None) -> list[str]:
        if rules is None:
            rules = DEFAULT_SSL_PRINCIPAL_MAPPING_RULES
        text = rules.strip()
        result = []
        pos = 0
        while pos <= len(text):
            m = _RULE_SPLITTER.match(text, pos)
            if m is None:
                break
            result.append(m.group(1))
            if m.end() == pos:
                break
            pos = m.end()
        return result

    # Kafka: SslPrincipalMapper.parseRules
    @staticmethod
    def _parse_rules(rules: list[str]) -> list[_Rule]:
        result = []
        for rule in rules:
            m = _RULE_PARSER.match(rule)
            if m is None:
                raise ValueError(f"Invalid rule: {rule}")
            if m.end() != len(rule):
                raise ValueError(f"Invalid rule: `{rule}`, unmatched substring: `{rule[m.end():]}`")
            if m.group(1) is not None:
                result.append(_Rule())
            elif m.group(2) is not None:
                result.append(_Rule(m.group(2), m.group(4), m.group(6) == "L", m.group(6) == "U"))
            # empty rules are ignored
        return result

    # Kafka: SslPrincipalMapper.getName
    def get_name(self, distinguished_name: str) -> str:
        for rule in self.rules:
            name = rule.apply(distinguished_name)
            if name is not None:
                return name
        raise NoMatchingRule(f"No rules apply to {distinguished_name}, rules [{', '.join(map(str, self.rules))}]")

    def __str__(self) -> str:
        return f"SslPrincipalMapper(rules = [{', '.join(map(str, self.rules))}])"
