#!/usr/bin/env python3
"""Fails when a C++ function body is longer than a limit (default 80 lines).

Usage: check_function_size.py [--max-lines N] [--list] PATH...
PATH is a file or a folder (searched for .cpp and .h files). A function's length is counted
as clang-tidy's readability-function-size counts "lines including whitespace and comments":
the line of the body's closing brace minus the line of its opening brace. Lambdas count as
part of the function that holds them; namespace, class, enum and initializer braces are not
functions. Prints file:line, name and length of each function over the limit and exits 1 if
there is one. --list prints every function found (for calibration against clang-tidy).

The tokenizer is small on purpose (no third-party modules): it blanks comments, string and
character literals (raw strings too) and preprocessor lines, then classifies each brace by
the tokens in front of it.
"""
import argparse
import os
import re
import sys

SPECIFIERS = {"const", "volatile", "noexcept", "override", "final", "&", "&&", "throw", "[", "]"}
CLASS_KEYS = {"class", "struct", "union", "enum"}
DECL_PREFIX = {"inline", "static", "constexpr", "extern", "typedef", "friend", "virtual",
               "explicit", "[", "]"}
TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.']*|::|->|&&|\S")


def blank(text):
    """`text` with comments, literals and preprocessor lines turned into spaces (newlines
    kept, so offsets and line numbers stay those of the file)."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":  # a preprocessor line, with its continuations
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                if text.startswith("/*", j):  # a comment may continue past the line
                    end = text.find("*/", j + 2)
                    j = n if end < 0 else end + 2
                    continue
                j += 1
            wipe(i, j)
            i = j
            continue
        line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif c == '"' or c == "'":
            prefix = re.search(r"(?:\b(?:u8|u|U|L)?R)$", text[max(0, i - 3):i])
            if c == '"' and prefix:
                m = re.match(r'"([^()\\\s]{0,16})\(', text[i:])
                if m:
                    end = text.find(")" + m.group(1) + '"', i + len(m.group(0)))
                    j = n if end < 0 else end + len(m.group(1)) + 2
                    wipe(i, j)
                    i = j
                    continue
            if c == "'" and i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_") \
                    and re.match(r"[0-9A-Fa-f]", text[i + 1:i + 2] or " ") \
                    and re.search(r"\b\d[\w']*$", text[max(0, i - 64):i]):
                i += 1  # a digit separator: 1'000
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            wipe(i, j + 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def tokens(text):
    """(token, offset) pairs of the blanked text."""
    return [(m.group(0), m.start()) for m in TOKEN.finditer(text)]


def prefix_length(head):
    """How many tokens of `head` are template<...> clauses and declaration prefixes."""
    k = 0
    while k < len(head):
        if head[k] == "template" and k + 1 < len(head) and head[k + 1] == "<":
            depth = 0
            k += 1
            while k < len(head):
                if head[k] == "<":
                    depth += 1
                elif head[k] == ">":
                    depth -= 1
                    if depth == 0:
                        break
                elif head[k] == "(":  # a default argument such as (a > b)
                    close = matching(head, k, "(", ")")
                    k = len(head) if close is None else close
                k += 1
            k += 1
        elif head[k] in DECL_PREFIX:
            k += 1
        else:
            break
    return k


def strip_template(head):
    """`head` without leading template<...> clauses and declaration prefixes."""
    return head[prefix_length(head):]


def param_group(head):
    """(index of the '(' that opens the parameter list, index of its ')'), or None: the
    first top-level '(' after a name or after `operator` and its symbol. Angle brackets
    after a name count as template arguments."""
    paren = angle = square = 0
    for k, t in enumerate(head):
        prev = head[k - 1] if k else ""
        top = paren == 0 and angle == 0 and square == 0
        if t == "operator" and top:
            # operator() names itself with parentheses; other operators end at the first '('.
            j = k + 3 if head[k + 1:k + 3] == ["(", ")"] else k + 1
            while j < len(head) and head[j] != "(":
                j += 1
            close = matching(head, j, "(", ")") if j < len(head) else None
            return None if close is None else (j, close)
        if t == "(":
            if top and prev == "]":
                return None  # a lambda
            if top and (re.match(r"[A-Za-z_]", prev) or prev == ">"):
                close = matching(head, k, "(", ")")
                return None if close is None else (k, close)
            paren += 1
        elif t == ")":
            paren -= 1
        elif t == "[":
            square += 1
        elif t == "]":
            square -= 1
        elif paren == 0 and t == "<" and (re.match(r"[A-Za-z_]", prev) or prev == ">"):
            angle += 1
        elif paren == 0 and t == ">" and angle > 0:
            angle -= 1
        elif top and t == "=":
            return None  # an initializer
    return None


def matching(head, k, open_, close):
    depth = 0
    for j in range(k, len(head)):
        if head[j] == open_:
            depth += 1
        elif head[j] == close:
            depth -= 1
            if depth == 0:
                return j
    return None


def function_name(head, lparen):
    """(qualified name, index of the token that clang-tidy reports it at) of the function
    whose parameter list opens at `lparen`."""
    k = lparen - 1
    if k >= 2 and head[k - 2:k + 1] == ["operator", "(", ")"]:
        return qualify(head, k - 3, "operator()"), k - 2
    for j in range(k, max(-1, k - 6), -1):
        if head[j] == "operator":
            words = head[j + 1:k + 1]
            if words and re.match(r"\w", words[0]):
                return qualify(head, j - 1, "operator " + " ".join(words)), j
            return qualify(head, j - 1, "operator" + "".join(words)), j
    if k < 0:
        return "?", 0
    if k >= 1 and head[k - 1] == "~":
        return qualify(head, k - 2, "~" + head[k]), k - 1
    return qualify(head, k - 1, head[k]), k


def qualify(head, k, name):
    while k >= 1 and head[k] == "::" and re.match(r"\w", head[k - 1]):
        name = head[k - 1] + "::" + name
        k -= 2
    return name


def is_function_head(head):
    """For the tokens in front of a '{' at namespace or class scope: the parameter group,
    when they declare a function; None otherwise."""
    head = strip_template(head)
    if not head or head[0] in CLASS_KEYS or head[0] == "namespace":
        return None
    group = param_group(head)
    if group is None:
        return None
    rest = head[group[1] + 1:]
    k = 0
    while k < len(rest):
        t = rest[k]
        if t in ("->", ":"):  # a trailing return type or a constructor's initializers
            return group
        if t in ("noexcept", "throw") and k + 1 < len(rest) and rest[k + 1] == "(":
            k = matching(rest, k + 1, "(", ")")
            if k is None:
                return None
        elif t not in SPECIFIERS:
            return None
        k += 1
    return group


def find_functions(text):
    """(name, line of its name, line of '{', line of '}') of every function body in
    `text`."""
    clean = blank(text)
    toks = tokens(clean)
    line_of = []
    line = 1
    for ch in clean:
        line_of.append(line)
        if ch == "\n":
            line += 1
    line_of.append(line)
    found = []
    head = []  # tokens since the last ';', '{' or '}' at the current scope
    head_at = []  # their offsets
    depth_paren = 0
    k = 0
    while k < len(toks):
        t, at = toks[k]
        if t == "(":
            depth_paren += 1
        elif t == ")":
            depth_paren -= 1
        if t == "{":
            close = skip_braces(toks, k)
            if depth_paren > 0:
                head.append("{}")  # a braced initializer inside parentheses
                head_at.append(at)
                k = close + 1
                continue
            group = is_function_head(head)
            in_initializers = group is not None and is_member_initializer(head)
            if group is not None and not in_initializers:
                start = prefix_length(head)
                name, name_index = function_name(head[start:], group[0])
                found.append((name, line_of[head_at[start + name_index]], line_of[at],
                              line_of[toks[close][1]]))
                head, head_at = [], []
                k = close + 1
                continue
            stripped = strip_template(head)
            if (stripped and (stripped[0] in CLASS_KEYS or stripped[0] == "namespace")
                    and "=" not in stripped) or head[:1] == ["extern"]:
                head, head_at = [], []  # enter the scope: its members are read as at namespace scope
                k += 1
                continue
            head.append("{}")  # an initializer or an enum's body: skipped whole
            head_at.append(at)
            k = close + 1
            continue
        if t in (";", "}") and depth_paren == 0:
            head, head_at = [], []
        elif t == ":" and head and head[-1] in ("public", "private", "protected"):
            head, head_at = [], []
        else:
            head.append(t)
            head_at.append(at)
        k += 1
    return found


def is_member_initializer(head):
    """True when the '{' after `head` opens a member's braced initializer in a constructor's
    initializer list (`: m_a{1}`), not the body."""
    stripped = strip_template(head)
    group = param_group(stripped)
    rest = stripped[group[1] + 1:]
    if ":" not in rest:
        return False
    last = head[-1]
    return bool(re.match(r"[A-Za-z_]", last)) and last not in SPECIFIERS or last == ">"


def skip_braces(toks, k):
    depth = 0
    for j in range(k, len(toks)):
        if toks[j][0] == "{":
            depth += 1
        elif toks[j][0] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def sources(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for f in sorted(files):
                    if f.endswith((".cpp", ".h")):
                        yield os.path.join(root, f)
        else:
            yield path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-lines", type=int, default=80)
    parser.add_argument("--list", action="store_true", help="print every function found")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    over = 0
    for path in sources(args.paths):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for name, line, start, end in find_functions(text):
            lines = end - start
            if args.list:
                print(f"{path}:{line}: {name} {lines}")
            elif lines > args.max_lines:
                print(f"{path}:{line}: function '{name}' has {lines} lines "
                      f"(at most {args.max_lines})")
                over += 1
    if over:
        print(f"{over} function(s) over {args.max_lines} lines: split them at their seams",
              file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
