//! A small, allocation-free reader of Itanium-mangled names: the qualified name's components and the
//! C++11 ABI evidence, without a full demangle. Anything it does not understand yields `None`, and
//! callers fall back to `cpp_demangle`.

/// One component of a qualified name, as read from the mangled form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Component<'a> {
    /// A namespace, class or function identifier (`c10`, `cuda`, `ExchangeDevice`).
    Name(&'a str),
    /// A constructor of the class named by the previous component.
    Ctor(&'a str),
    /// A destructor of the class named by the previous component.
    Dtor(&'a str),
    /// An operator, spelled as in C++ (`operator==`).
    Operator(&'static str),
}

/// Strip `_Z` (or macOS' `__Z`); `None` when the name is not mangled C++.
pub fn strip_prefix(mangled: &str) -> Option<&str> {
    mangled
        .strip_prefix("_Z")
        .or_else(|| mangled.strip_prefix("__Z"))
}

/// Calls `f` with each component of the qualified name of `mangled` (template arguments and ABI
/// tags are skipped). Returns `None` when the name is not understood (special names such as
/// vtables, local names, lambdas, expressions in template arguments, truncated input); `f` may
/// have been called for a prefix in that case.
pub fn for_each_component<'a>(mangled: &'a str, f: &mut dyn FnMut(Component<'a>)) -> Option<()> {
    let body = strip_prefix(mangled)?;
    let mut c = Cursor {
        s: body.as_bytes(),
        src: body,
        pos: 0,
    };
    c.name(f)
}

/// For a template constructor (`_ZN … C1I … E E <parameters>`): the byte offset in `mangled` where
/// its parameter types start. cpp_demangle 0.5 reads the first of them as a return type (template
/// functions have one, constructors do not) and drops it from the output.
pub(crate) fn template_ctor_params(mangled: &str) -> Option<usize> {
    let body = strip_prefix(mangled)?;
    let mut c = Cursor {
        s: body.as_bytes(),
        src: body,
        pos: 0,
    };
    let mut last_is_ctor = false;
    c.nested(
        &mut |comp| last_is_ctor = matches!(comp, Component::Ctor(_)),
        0,
    )?;
    // `…C1I…EE`: the template arguments' `E`, then the nested name's.
    let templated = c.pos >= 2 && c.s.get(c.pos - 2) == Some(&b'E');
    (last_is_ctor && templated && c.pos < c.s.len()).then(|| mangled.len() - body.len() + c.pos)
}

struct Cursor<'a> {
    s: &'a [u8],
    src: &'a str,
    pos: usize,
}

const MAX_DEPTH: u32 = 64;

/// The decimal number at `*pos` (a length or an index), advancing past it; `None` when there is
/// no digit or it overflows. Shared by both demanglers, which read the same `<number>` grammar.
pub(crate) fn decimal(s: &[u8], pos: &mut usize) -> Option<usize> {
    let start = *pos;
    let mut n: usize = 0;
    while let Some(d) = s.get(*pos).copied().filter(u8::is_ascii_digit) {
        n = n.checked_mul(10)?.checked_add(usize::from(d - b'0'))?;
        *pos += 1;
    }
    (*pos > start).then_some(n)
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }
    fn peek_at(&self, n: usize) -> Option<u8> {
        self.s.get(self.pos + n).copied()
    }
    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn number(&mut self) -> Option<usize> {
        crate::mangled::decimal(self.s, &mut self.pos)
    }
    fn source_name(&mut self) -> Option<&'a str> {
        let len = self.number()?;
        let end = self.pos.checked_add(len)?;
        let name = self.src.get(self.pos..end)?;
        self.pos = end;
        Some(name)
    }
    /// `B <source-name>`*
    fn abi_tags(&mut self) -> Option<()> {
        while self.peek() == Some(b'B') && self.peek_at(1).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
            self.source_name()?;
        }
        Some(())
    }
    /// `S_` / `S <seq-id> _` after the `S` has been consumed.
    fn seq_id_rest(&mut self) -> Option<()> {
        while let Some(b) = self.peek() {
            self.pos += 1;
            if b == b'_' {
                return Some(());
            }
            if !(b.is_ascii_digit() || b.is_ascii_uppercase()) {
                return None;
            }
        }
        None
    }

    /// `<name>` at the top of an encoding.
    fn name(&mut self, f: &mut dyn FnMut(Component<'a>)) -> Option<()> {
        match self.peek()? {
            b'N' => self.nested(f, 0),
            b'L' => {
                self.pos += 1;
                self.unqualified(f, &mut None, 0)
            }
            b'S' if self.peek_at(1) == Some(b't') => {
                self.pos += 2;
                f(Component::Name("std"));
                self.unqualified(f, &mut Some("std"), 0)
            }
            b'0'..=b'9' | b'a'..=b'z' => self.unqualified(f, &mut None, 0),
            _ => None,
        }
    }

    /// One unqualified name (source name, operator, ctor/dtor) plus ABI tags and template args.
    fn unqualified(
        &mut self,
        f: &mut dyn FnMut(Component<'a>),
        last: &mut Option<&'a str>,
        depth: u32,
    ) -> Option<()> {
        match self.peek()? {
            b'0'..=b'9' => {
                let n = self.source_name()?;
                f(Component::Name(n));
                *last = Some(n);
            }
            b'C' => {
                // C1 C2 C3 C4 C5; inheriting constructors (CI1/CI2 <type>) are left to the demangler.
                if !matches!(self.peek_at(1), Some(b'1'..=b'5')) {
                    return None;
                }
                self.pos += 2;
                f(Component::Ctor((*last)?));
            }
            b'D' => {
                if !matches!(self.peek_at(1), Some(b'0'..=b'5')) {
                    return None;
                }
                self.pos += 2;
                f(Component::Dtor((*last)?));
            }
            b'a'..=b'z' => {
                let op = operator_name(self.s.get(self.pos..self.pos + 2)?)?;
                self.pos += 2;
                f(Component::Operator(op));
                *last = None;
            }
            _ => return None,
        }
        self.abi_tags()?;
        if self.peek() == Some(b'I') {
            self.template_args(depth + 1)?;
        }
        Some(())
    }

    /// `N [CV] [ref] <prefix> <unqualified-name> E`
    fn nested(&mut self, f: &mut dyn FnMut(Component<'a>), depth: u32) -> Option<()> {
        if depth > MAX_DEPTH || !self.eat(b'N') {
            return None;
        }
        while matches!(self.peek(), Some(b'r' | b'V' | b'K')) {
            self.pos += 1;
        }
        if matches!(self.peek(), Some(b'R' | b'O')) {
            self.pos += 1;
        }
        let mut last: Option<&'a str> = None;
        let mut first = true;
        loop {
            match self.peek()? {
                b'E' => {
                    self.pos += 1;
                    return if first { None } else { Some(()) };
                }
                b'S' if first => {
                    let (ns, class) = match self.peek_at(1)? {
                        b't' => ("std", None),
                        b'a' => ("std", Some("allocator")),
                        b'b' | b's' => ("std", Some("basic_string")),
                        b'i' => ("std", Some("basic_istream")),
                        b'o' => ("std", Some("basic_ostream")),
                        b'd' => ("std", Some("basic_iostream")),
                        _ => return None, // a substitution: the prefix is not spelled out here
                    };
                    self.pos += 2;
                    f(Component::Name(ns));
                    last = Some(ns);
                    if let Some(class) = class {
                        f(Component::Name(class));
                        last = Some(class);
                    }
                    if self.peek() == Some(b'I') {
                        self.template_args(depth + 1)?;
                    }
                }
                b'L' => self.pos += 1,
                _ => self.unqualified(f, &mut last, depth)?,
            }
            first = false;
        }
    }

    fn template_args(&mut self, depth: u32) -> Option<()> {
        if depth > MAX_DEPTH || !self.eat(b'I') {
            return None;
        }
        while !self.eat(b'E') {
            self.template_arg(depth + 1)?;
        }
        Some(())
    }

    fn template_arg(&mut self, depth: u32) -> Option<()> {
        match self.peek()? {
            b'L' => {
                self.pos += 1;
                if self.peek() == Some(b'_') {
                    return None; // an external name as argument (`L_Z...E`)
                }
                self.skip_type(depth + 1)?;
                // The value: digits, `n` for negative, lowercase hex for floats; never `E`.
                while self.peek()? != b'E' {
                    self.pos += 1;
                }
                self.pos += 1;
                Some(())
            }
            b'J' => {
                self.pos += 1;
                while !self.eat(b'E') {
                    self.template_arg(depth + 1)?;
                }
                Some(())
            }
            b'X' => None,
            _ => self.skip_type(depth + 1),
        }
    }

    fn skip_type(&mut self, depth: u32) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let b = self.peek()?;
        match b {
            b'v' | b'w' | b'b' | b'c' | b'a' | b'h' | b's' | b't' | b'i' | b'j' | b'l' | b'm'
            | b'x' | b'y' | b'n' | b'o' | b'f' | b'd' | b'e' | b'g' | b'z' => {
                self.pos += 1;
                Some(())
            }
            b'u' => {
                self.pos += 1;
                self.source_name()?;
                self.opt_template_args(depth)
            }
            b'r' | b'V' | b'K' | b'P' | b'R' | b'O' | b'C' | b'G' => {
                self.pos += 1;
                self.skip_type(depth + 1)
            }
            b'D' => {
                self.pos += 1;
                match self.peek()? {
                    b'p' => {
                        self.pos += 1;
                        self.skip_type(depth + 1)
                    }
                    b'n' | b'a' | b'c' | b'i' | b's' | b'u' | b'd' | b'e' | b'f' | b'h' => {
                        self.pos += 1;
                        Some(())
                    }
                    b'F' => {
                        self.pos += 1;
                        self.number()?;
                        if matches!(self.peek()?, b'_' | b'x' | b'b') {
                            self.pos += 1;
                        }
                        Some(())
                    }
                    b'v' => {
                        self.pos += 1;
                        self.number()?;
                        if !self.eat(b'_') {
                            return None;
                        }
                        self.skip_type(depth + 1)
                    }
                    _ => None,
                }
            }
            b'F' => {
                self.pos += 1;
                self.eat(b'Y');
                loop {
                    match self.peek()? {
                        b'E' => {
                            self.pos += 1;
                            return Some(());
                        }
                        b'R' | b'O' if self.peek_at(1) == Some(b'E') => self.pos += 1,
                        _ => self.skip_type(depth + 1)?,
                    }
                }
            }
            b'A' => {
                self.pos += 1;
                if self.peek()?.is_ascii_digit() {
                    self.number()?;
                }
                if !self.eat(b'_') {
                    return None;
                }
                self.skip_type(depth + 1)
            }
            b'M' => {
                self.pos += 1;
                self.skip_type(depth + 1)?;
                self.skip_type(depth + 1)
            }
            b'T' => {
                self.pos += 1;
                self.seq_id_rest()?;
                self.opt_template_args(depth)
            }
            b'S' => {
                self.pos += 1;
                match self.peek()? {
                    b't' => {
                        self.pos += 1;
                        self.unqualified(&mut |_| {}, &mut None, depth + 1)
                    }
                    b'a' | b'b' | b's' | b'i' | b'o' | b'd' => {
                        self.pos += 1;
                        self.opt_template_args(depth)
                    }
                    _ => {
                        self.seq_id_rest()?;
                        self.opt_template_args(depth)
                    }
                }
            }
            b'N' => self.skip_nested(depth + 1),
            b'0'..=b'9' => {
                self.source_name()?;
                self.abi_tags()?;
                self.opt_template_args(depth)
            }
            _ => None,
        }
    }

    fn opt_template_args(&mut self, depth: u32) -> Option<()> {
        if self.peek() == Some(b'I') {
            self.template_args(depth + 1)?;
        }
        Some(())
    }

    /// A nested name inside a type, where prefixes may be substitutions (`NS_10TensorImplE`).
    fn skip_nested(&mut self, depth: u32) -> Option<()> {
        if depth > MAX_DEPTH || !self.eat(b'N') {
            return None;
        }
        while matches!(self.peek(), Some(b'r' | b'V' | b'K' | b'R' | b'O')) {
            self.pos += 1;
        }
        let mut any = false;
        loop {
            match self.peek()? {
                b'E' => {
                    self.pos += 1;
                    return any.then_some(());
                }
                b'S' => {
                    self.pos += 1;
                    match self.peek()? {
                        b't' | b'a' | b'b' | b's' | b'i' | b'o' | b'd' => self.pos += 1,
                        _ => self.seq_id_rest()?,
                    }
                }
                b'T' => {
                    self.pos += 1;
                    self.seq_id_rest()?;
                }
                b'I' => self.template_args(depth + 1)?,
                b'L' => self.pos += 1,
                b'0'..=b'9' => {
                    self.source_name()?;
                    self.abi_tags()?;
                }
                b'C' | b'D' if matches!(self.peek_at(1), Some(b'0'..=b'5')) => self.pos += 2,
                _ => return None,
            }
            any = true;
        }
    }
}

/// C++ spelling of a two-letter operator code.
fn operator_name(code: &[u8]) -> Option<&'static str> {
    Some(match code {
        b"nw" => "operator new",
        b"na" => "operator new[]",
        b"dl" => "operator delete",
        b"da" => "operator delete[]",
        b"ps" => "operator+",
        b"ng" => "operator-",
        b"ad" => "operator&",
        b"de" => "operator*",
        b"co" => "operator~",
        b"pl" => "operator+",
        b"mi" => "operator-",
        b"ml" => "operator*",
        b"dv" => "operator/",
        b"rm" => "operator%",
        b"an" => "operator&",
        b"or" => "operator|",
        b"eo" => "operator^",
        b"aS" => "operator=",
        b"pL" => "operator+=",
        b"mI" => "operator-=",
        b"mL" => "operator*=",
        b"dV" => "operator/=",
        b"rM" => "operator%=",
        b"aN" => "operator&=",
        b"oR" => "operator|=",
        b"eO" => "operator^=",
        b"ls" => "operator<<",
        b"rs" => "operator>>",
        b"lS" => "operator<<=",
        b"rS" => "operator>>=",
        b"eq" => "operator==",
        b"ne" => "operator!=",
        b"lt" => "operator<",
        b"gt" => "operator>",
        b"le" => "operator<=",
        b"ge" => "operator>=",
        b"ss" => "operator<=>",
        b"nt" => "operator!",
        b"aa" => "operator&&",
        b"oo" => "operator||",
        b"pp" => "operator++",
        b"mm" => "operator--",
        b"cm" => "operator,",
        b"pm" => "operator->*",
        b"pt" => "operator->",
        b"cl" => "operator()",
        b"ix" => "operator[]",
        _ => return None,
    })
}

/// Evidence of the C++11 ABI in a mangled name, read token by token so that identifiers that
/// happen to contain `Ss` or `B5cxx11` are not mistaken for it.
pub(crate) fn scan_abi(mangled: &str) -> (bool, bool) {
    let s = mangled.as_bytes();
    let (mut cxx11, mut pre) = (false, false);
    let body_start = if mangled.starts_with("__Z") { 3 } else { 2 };
    let mut i = body_start.min(s.len());
    let mut after_std = false;
    while i < s.len() {
        let b = s[i];
        let was_std = after_std;
        after_std = false;
        match b {
            b'0'..=b'9' => {
                let start = i;
                let mut n = 0usize;
                while i < s.len() && s[i].is_ascii_digit() {
                    n = n
                        .saturating_mul(10)
                        .saturating_add(usize::from(s[i] - b'0'));
                    i += 1;
                }
                let end = i.saturating_add(n).min(s.len());
                let id = &s[i..end];
                // `__cxx11` is a reserved name: wherever it appears (`std::`, `std::filesystem::`)
                // it is the C++11 ABI's inline namespace.
                if id == b"__cxx11" {
                    cxx11 = true;
                } else if was_std && is_dual_abi_class(id) {
                    pre = true;
                }
                // `B <source-name>` is an ABI tag.
                if start > 0 && s[start - 1] == b'B' && id == b"cxx11" {
                    cxx11 = true;
                }
                i = end;
            }
            b'S' => match s.get(i + 1) {
                Some(b's' | b'b') => {
                    pre = true;
                    i += 2;
                }
                Some(b't') => {
                    after_std = true;
                    i += 2;
                }
                Some(b'a' | b'i' | b'o' | b'd') => i += 2,
                _ => {
                    i += 1;
                    while i < s.len() && (s[i].is_ascii_digit() || s[i].is_ascii_uppercase()) {
                        i += 1;
                    }
                }
            },
            // Digits that are not identifier lengths: template parameters, thunk offsets, array
            // sizes, vector sizes, ctor/dtor kinds.
            b'T' | b'A' => {
                i += 1;
                // Special names right after the prefix: `_ZTV`, `_ZTI`, `_ZTS`, `_ZTT`.
                if b == b'T'
                    && i == body_start + 1
                    && i < s.len()
                    && matches!(s[i], b'V' | b'I' | b'S' | b'T')
                {
                    i += 1;
                }
                if i < s.len() && matches!(s[i], b'h' | b'v') {
                    i += 1;
                }
                while i < s.len() && (s[i].is_ascii_digit() || s[i] == b'n' || s[i] == b'_') {
                    i += 1;
                }
            }
            b'C' | b'D' => {
                i += 1;
                if i < s.len()
                    && (s[i] == b'v'
                        || s[i] == b'F'
                        || s[i] == b'B'
                        || s[i] == b'U'
                        || s[i] == b'I')
                {
                    i += 1;
                }
                while i < s.len() && (s[i].is_ascii_digit() || s[i] == b'_') {
                    i += 1;
                }
            }
            b'L' => {
                i += 1;
                // A literal of builtin type: `Li5E`, `Lb1E`, `Lln3E`.
                if i + 1 < s.len() && s[i].is_ascii_lowercase() && s[i] != b'_' {
                    i += 1;
                    while i < s.len() && s[i] != b'E' {
                        i += 1;
                    }
                }
            }
            b'U' => {
                i += 1;
                if i < s.len() && s[i] == b't' {
                    i += 1;
                    while i < s.len() && (s[i].is_ascii_digit() || s[i] == b'_') {
                        i += 1;
                    }
                }
            }
            _ => i += 1,
        }
    }
    (cxx11, pre)
}

/// Classes that exist in both ABIs: `std::` + one of these without `__cxx11` is the old ABI.
fn is_dual_abi_class(id: &[u8]) -> bool {
    matches!(
        id,
        b"basic_string"
            | b"basic_stringbuf"
            | b"basic_istringstream"
            | b"basic_ostringstream"
            | b"basic_stringstream"
            | b"list"
            | b"_List_base"
    )
}

/// Groups of any kind nested deeper than this make [`backtrack_nesting`] give up (`None`). The
/// deepest real name seen (205,420 exported symbols of torch, LLVM, clang, z3, libstdc++) nests 22.
const MAX_GROUPS: usize = 64;

/// One open `…E` group, for what its `E` closes and what may follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    /// A nested name `N…E`: cpp_demangle reads it one way only, so it does not count.
    Nested,
    /// A literal `L…E`: digits right before its `E` are its value, not an identifier's length.
    Literal,
    /// A lambda `Ul…E`, whose `E` is followed by its number and `_`.
    Lambda,
    /// Template arguments `I`, a pack `J`, an expression `X`, a function type `F`, a local name
    /// `Z`, `decltype` (`DT`, `Dt`) and the other `D…E` forms.
    Other,
}

/// What [`backtrack_nesting`] measures of a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Backtrack {
    /// The deepest nesting of counted groups.
    pub(crate) deepest: usize,
    /// Every byte weighted by `2^(counted groups around it)`, saturating: an upper estimate of
    /// how many bytes cpp_demangle's parser reads when each enclosing group parses its inside
    /// twice. Depth alone does not bound the time, since one shallow group can hold a long
    /// inside (12 levels around 15 KB of `i`, cut off, took 33 ms in release).
    pub(crate) work: u64,
}

/// How deeply `body` (a mangled name after `_Z`) nests the groups that cpp_demangle may parse
/// more than once, and how much parsing that may cost ([`Backtrack`]), read token by token like
/// [`scan_abi`]: identifiers are skipped by their length, and the digits that are not lengths
/// (substitutions, template parameters, literal values, array and vector sizes, discriminators,
/// lambda numbers, thunk offsets) are read as numbers. `None` when groups of any kind nest deeper
/// than [`MAX_GROUPS`].
///
/// cpp_demangle backtracks: when a group fails to parse deep inside, each enclosing group that
/// has another reading (a substitution or a template parameter before template arguments, a
/// literal, an expression, a `decltype`) parses everything inside it again, so the work doubles
/// with each level. Nested names are read one way only and are not counted, which keeps real
/// names shallow (see `demangle::MAX_FALLBACK_NESTING` and `demangle::MAX_FALLBACK_WORK`).
pub(crate) fn backtrack_nesting(body: &[u8]) -> Option<Backtrack> {
    let s = body;
    let mut stack = [Group::Other; MAX_GROUPS];
    let (mut open, mut depth, mut deepest) = (0usize, 0usize, 0usize);
    let mut work = 0u64;
    let top =
        |stack: &[Group], open: usize| open.checked_sub(1).and_then(|t| stack.get(t).copied());
    let mut i = 0;
    // Special names: vtables, typeinfo, thunks (`Th`/`Tv`/`Tc` call offsets), guard variables.
    match (s.first(), s.get(1)) {
        (Some(b'T'), Some(b'h' | b'v')) => {
            i = 1;
            call_offset(s, &mut i);
        }
        (Some(b'T'), Some(b'c')) => {
            i = 2;
            call_offset(s, &mut i);
            call_offset(s, &mut i);
        }
        (Some(b'T'), Some(b'A'..=b'Z')) => i = 2,
        (Some(b'G'), Some(b'T')) => i = 3,
        (Some(b'G'), Some(_)) => i = 2,
        _ => {}
    }
    while let Some(&b) = s.get(i) {
        let token = i;
        i += 1;
        let group = match b {
            b'0'..=b'9' => {
                let mut len = usize::from(b - b'0');
                while let Some(d) = s.get(i).filter(|d| d.is_ascii_digit()) {
                    len = len.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                    i += 1;
                }
                let value = top(&stack, open) == Some(Group::Literal) && s.get(i) == Some(&b'E');
                if !value {
                    i = i.saturating_add(len);
                }
                None
            }
            // `S_`, `S<seq-id>_`, or `St`, `Sa`, `Ss` …
            b'S' => {
                let mut j = i;
                while s
                    .get(j)
                    .is_some_and(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
                {
                    j += 1;
                }
                if s.get(j) == Some(&b'_') {
                    i = j + 1;
                } else if s.get(i).is_some_and(u8::is_ascii_lowercase) {
                    i += 1;
                }
                None
            }
            // `T_`, `T<n>_`, `TL<n>__`, `TL<n>_<n>_`.
            b'T' => {
                if s.get(i) == Some(&b'L')
                    && s.get(i + 1)
                        .is_some_and(|c| c.is_ascii_digit() || *c == b'_')
                {
                    i += 1;
                    skip_number(s, &mut i);
                    eat(s, &mut i, b'_');
                }
                let mut j = i;
                skip_number(s, &mut j);
                if s.get(j) == Some(&b'_') {
                    i = j + 1;
                }
                None
            }
            // Constructors `C1`…`C5`, inheriting constructors `CI1`, `CI2`.
            b'C' => {
                if s.get(i).is_some_and(|c| (b'1'..=b'5').contains(c)) {
                    i += 1;
                } else if s.get(i) == Some(&b'I')
                    && s.get(i + 1).is_some_and(|c| matches!(c, b'1' | b'2'))
                {
                    i += 2;
                }
                None
            }
            b'I' | b'J' | b'X' | b'F' | b'Z' => Some(Group::Other),
            b'N' => Some(Group::Nested),
            b'L' => {
                if s.get(i..).is_some_and(|t| t.starts_with(b"_Z")) {
                    i += 2;
                } else {
                    // A builtin type (`Li`, `Lb`, `LDn`) and its value: decimal, or a float's
                    // hexadecimal digits.
                    if s.get(i) == Some(&b'D') && s.get(i + 1).is_some_and(u8::is_ascii_lowercase) {
                        i += 1;
                    }
                    if s.get(i).is_some_and(u8::is_ascii_lowercase) {
                        i += 1;
                        eat(s, &mut i, b'n');
                        while s
                            .get(i)
                            .is_some_and(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
                        {
                            i += 1;
                        }
                    }
                }
                Some(Group::Literal)
            }
            b'U' => match s.get(i) {
                // `Ut<n>_`: an unnamed type.
                Some(b't') => {
                    i += 1;
                    skip_number(s, &mut i);
                    eat(s, &mut i, b'_');
                    None
                }
                Some(b'l') => {
                    i += 1;
                    Some(Group::Lambda)
                }
                _ => None,
            },
            b'D' => match s.get(i) {
                Some(b'T' | b't' | b'O' | b'w' | b'C' | b'X') => {
                    i += 1;
                    Some(Group::Other)
                }
                // `Dv<n>_` vector sizes, `DF<n>_` float types.
                Some(b'v' | b'F') => {
                    i += 1;
                    skip_number(s, &mut i);
                    eat(s, &mut i, b'_');
                    None
                }
                // Builtins (`Dn`, `Dp`, …) and destructors `D0`…`D5`.
                Some(_) => {
                    i += 1;
                    None
                }
                None => None,
            },
            // `A<n>_`: an array size.
            b'A' => {
                skip_number(s, &mut i);
                eat(s, &mut i, b'_');
                None
            }
            // Function parameters `fp<cv><n>_`, `fL<n>p<cv><n>_`.
            b'f' if s.get(i) == Some(&b'p')
                || (s.get(i) == Some(&b'L') && s.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                if eat(s, &mut i, b'L') {
                    skip_number(s, &mut i);
                }
                eat(s, &mut i, b'p');
                while s.get(i).is_some_and(|c| matches!(c, b'r' | b'V' | b'K')) {
                    i += 1;
                }
                skip_number(s, &mut i);
                eat(s, &mut i, b'_');
                None
            }
            // Discriminators `_<digit>`, `__<n>_`.
            b'_' => {
                if eat(s, &mut i, b'_') {
                    skip_number(s, &mut i);
                    eat(s, &mut i, b'_');
                } else if s.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                None
            }
            b'E' => {
                match top(&stack, open) {
                    Some(Group::Nested) => {}
                    Some(Group::Lambda) => {
                        depth -= 1;
                        skip_number(s, &mut i);
                        eat(s, &mut i, b'_');
                    }
                    Some(Group::Literal | Group::Other) => depth -= 1,
                    // An `E` with nothing open closes nothing.
                    None => {}
                }
                open = open.saturating_sub(1);
                None
            }
            // A clone suffix (`.constprop.0`): no more groups.
            b'.' => break,
            _ => None,
        };
        if let Some(group) = group {
            *stack.get_mut(open)? = group;
            open += 1;
            if group != Group::Nested {
                depth += 1;
                deepest = deepest.max(depth);
            }
        }
        // An identifier's length may point past the end; only the bytes that exist are read.
        let bytes = i.min(s.len()).saturating_sub(token) as u64;
        let weight = u32::try_from(depth)
            .ok()
            .and_then(|d| 1u64.checked_shl(d))
            .unwrap_or(u64::MAX);
        work = work.saturating_add(bytes.saturating_mul(weight));
    }
    Some(Backtrack { deepest, work })
}

/// Advances past the decimal digits at `*i`.
fn skip_number(s: &[u8], i: &mut usize) {
    while s.get(*i).is_some_and(u8::is_ascii_digit) {
        *i += 1;
    }
}

/// Advances past `b` if it is next.
fn eat(s: &[u8], i: &mut usize, b: u8) -> bool {
    let hit = s.get(*i) == Some(&b);
    if hit {
        *i += 1;
    }
    hit
}

/// Advances past a call offset: `h <n> _` or `v <n> _ <n> _` (`n` marks a negative number).
fn call_offset(s: &[u8], i: &mut usize) {
    let parts = match s.get(*i) {
        Some(b'h') => 1,
        Some(b'v') => 2,
        _ => return,
    };
    *i += 1;
    for _ in 0..parts {
        eat(s, i, b'n');
        skip_number(s, i);
        eat(s, i, b'_');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comps(m: &str) -> Option<Vec<String>> {
        let mut v = Vec::new();
        for_each_component(m, &mut |c| {
            v.push(match c {
                Component::Name(n) => n.to_string(),
                Component::Ctor(n) => n.to_string(),
                Component::Dtor(n) => format!("~{n}"),
                Component::Operator(o) => o.to_string(),
            });
        })?;
        Some(v)
    }

    #[test]
    fn components() {
        assert_eq!(
            comps("_ZN3c104cuda14ExchangeDeviceEa").unwrap(),
            ["c10", "cuda", "ExchangeDevice"]
        );
        assert_eq!(
            comps("_ZN3c105ErrorC1ENS_14SourceLocationESs").unwrap(),
            ["c10", "Error", "Error"]
        );
        assert_eq!(
            comps("_ZN3c105ErrorD1Ev").unwrap(),
            ["c10", "Error", "~Error"]
        );
        assert_eq!(
            comps("_ZNK3c106Device3strB5cxx11Ev").unwrap(),
            ["c10", "Device", "str"]
        );
        assert_eq!(
            comps("_Z16THPVariable_WrapRKN2at10TensorBaseE").unwrap(),
            ["THPVariable_Wrap"]
        );
        assert_eq!(comps("__Z3foov").unwrap(), ["foo"]);
        assert_eq!(
            comps("_ZN3c1013intrusive_ptrINS_10TensorImplENS_6detail34intrusive_target_default_null_typeIS1_EEE5resetEv").unwrap(),
            ["c10", "intrusive_ptr", "reset"]
        );
        assert_eq!(
            comps("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE10_M_replaceEmmPKcm")
                .unwrap(),
            ["std", "__cxx11", "basic_string", "_M_replace"]
        );
        assert_eq!(
            comps("_ZNKSs4sizeEv").unwrap(),
            ["std", "basic_string", "size"]
        );
        assert_eq!(comps("_ZlsRSoRKN3c106DeviceE").unwrap(), ["operator<<"]);
        assert_eq!(
            comps("_ZN2at6TensoraSEOS0_").unwrap(),
            ["at", "Tensor", "operator="]
        );
        assert_eq!(comps("_ZSt4moveIRiEOT_S1_").unwrap(), ["std", "move"]);
        assert_eq!(
            comps("_ZN2at6native3addILi2EEEvv").unwrap(),
            ["at", "native", "add"]
        );
    }

    #[test]
    fn not_understood_or_truncated() {
        for m in [
            "",
            "_Z",
            "_ZN",
            "_ZN3c10",
            "_ZN3c1",
            "_ZN99abc",
            "_ZTIN3c105ErrorE",
            "_ZTVN3c105ErrorE",
            "foo",
            "_ZN3c10Ut_E",
            "_ZZ3foovE1x",
        ] {
            assert!(comps(m).is_none(), "{m}");
        }
    }

    fn nesting(m: &str) -> Option<usize> {
        backtrack_nesting(strip_prefix(m).unwrap_or(m).as_bytes()).map(|b| b.deepest)
    }

    fn work(m: &str) -> Option<u64> {
        backtrack_nesting(strip_prefix(m).unwrap_or(m).as_bytes()).map(|b| b.work)
    }

    #[test]
    fn backtracking_work() {
        // No counted group: one unit per byte (`N…E` does not count).
        assert_eq!(work("_ZN3c104cuda14ExchangeDeviceEa"), Some(28));
        // `1f` at depth 0, `I` and `i` at 1, `E` closes back to 0, `vT_` at 0.
        assert_eq!(work("_Z1fIiEvT_"), Some(2 + 2 + 2 + 1 + 3));
        // The inside of a group costs twice as much per level, however long it is.
        let shallow = work(&format!("_Z1f{}b", "St7variantIJ".repeat(2))).unwrap();
        let long = work(&format!(
            "_Z1f{}{}",
            "St7variantIJ".repeat(2),
            "i".repeat(1000)
        ))
        .unwrap();
        assert_eq!(long - shallow, 999 * 16);
        // An identifier whose length runs past the end counts the bytes that are there.
        assert_eq!(work("_Z99999999999999999999999a"), Some(24));
        // Deep enough to overflow a shift saturates instead.
        let deep = format!("_Z{}i", "I".repeat(MAX_GROUPS));
        assert_eq!(work(&deep), Some(u64::MAX));
    }

    #[test]
    fn backtracking_groups() {
        // Nested names and identifiers that spell `I`, `E`, `L` do not count.
        assert_eq!(nesting("_ZN3c104cuda14ExchangeDeviceEa"), Some(0));
        assert_eq!(nesting("_ZN5Index9ErrorLIXEE"), Some(0));
        assert_eq!(nesting("_Z1fIiEvT_"), Some(1));
        // A literal's value is not a length: `Li5E` closes, so the next group is at depth 2.
        assert_eq!(nesting("_Z1fILi5ELin12ELb1EIiEEvv"), Some(2));
        assert_eq!(nesting("_ZN1AILNS_1BE1EEE"), Some(2));
        // `std::function<void (c10::IValue&)>`: `I`, `F`.
        assert_eq!(nesting("_ZNSt8functionIFvRN3c106IValueEEEC1Ev"), Some(2));
        // A lambda in a local name: `Z…E`, then `Ul…E_`.
        assert_eq!(nesting("_ZZ1fvENKUlvE_clEv"), Some(1));
        // Thunks, vtables and constructors read their numbers, not identifiers.
        assert_eq!(nesting("_ZThn8_N3c1010TensorImplD0Ev"), Some(0));
        assert_eq!(nesting("_ZTv0_n24_N3c1010TensorImplD1Ev"), Some(0));
        assert_eq!(nesting("_ZTVN3c1010TensorImplE"), Some(0));
        assert_eq!(nesting("_ZN1AC2IiEET_"), Some(1));
        // Substitutions and template parameters before template arguments.
        assert_eq!(nesting("_Z1fISt7variantIJS_IiEEEEvv"), Some(4));
        assert_eq!(
            nesting(&format!("_Z1f{}b", "St7variantIJ".repeat(12))),
            Some(24)
        );
        assert_eq!(nesting(&format!("_Z1f{}b", "DTL".repeat(8))), Some(16));
        // Too many groups of any kind, counted or not.
        assert_eq!(
            nesting(&format!("_Z{}1aE", "N".repeat(MAX_GROUPS + 1))),
            None
        );
        assert_eq!(nesting(&format!("_Z{}1a", "N".repeat(MAX_GROUPS))), Some(0));
        // Cut or stray input.
        assert_eq!(nesting("_Z"), Some(0));
        assert_eq!(nesting("_Z1fEEEEI"), Some(1));
        assert_eq!(nesting("_Z99999999999999999999999a"), Some(0));
    }

    #[test]
    fn abi_scan() {
        assert_eq!(
            scan_abi(
                "_ZN3c105ErrorC1ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
            ),
            (true, false)
        );
        assert_eq!(
            scan_abi("_ZN3c105ErrorC1ENS_14SourceLocationESs"),
            (false, true)
        );
        assert_eq!(scan_abi("_ZNK3c106Device3strB5cxx11Ev"), (true, false));
        assert_eq!(scan_abi("_ZN3c104cuda14ExchangeDeviceEa"), (false, false));
        // identifiers that contain the tokens are not evidence
        assert_eq!(scan_abi("_ZN3c108Ss_thing5cxx11Ev"), (false, false));
        assert_eq!(scan_abi("_ZN3foo3barERSo"), (false, false));
        assert_eq!(
            scan_abi("_ZNSt12basic_stringIcSt11char_traitsIcESaIcEE4sizeEv"),
            (false, true)
        );
    }
}
