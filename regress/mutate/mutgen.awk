# regress/mutate/mutgen.awk: the mutants of one C or yacc source, in a
# fixed order (by line, then by operator), so two runs on the same text
# make the same mutants with the same numbers.
#
#	awk -f mutgen.awk FILE			one line a mutant:
#						N, line, operator, mutant
#	awk -v apply=N -f mutgen.awk FILE	FILE with mutant N applied
#
# Line based, and conservative: comments, strings, character constants
# and preprocessor lines (yacc's % lines too) are masked out first, and
# a mutation whose extent is not certain on its line is not made.  The
# operators:
#
#	rel-flip	< <= > >= == != to the opposite relation
#	rel-bound	< <= > >= moved by one (< to <=, >= to >, ...)
#	or-drop		an operand of || replaced by 0
#	and-drop	an operand of && replaced by 1
#	if-true		if (c) to if (1 || (c))
#	if-false	if (c) to if (0 && (c))
#	while-false	while (c) to while (0 && (c))
#	ret=V		return e; to return V; (e not a constant): 0 and 1,
#			0 and -1 in a function that returns -1, NULL in
#			one that returns NULL
#	const+1 const-1	a decimal or hex integer constant moved by one (not
#			an array's size in a declaration)
#	bool-flip	true to false and back
#	del-stmt	a statement of an if or else body deleted (a return,
#			goto, break, continue, call, assignment; not the
#			logging and free calls, which no test observes)

function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

function short(s) {
	gsub(/[\t\r\n]/, " ", s)
	s = trim(s)
	if (length(s) > 48)
		s = substr(s, 1, 45) "..."
	return s
}

# The line with comments, strings and character constants blanked, the
# same length as the line.
function mask(i,	s, out, j, c, c2, q, len, t) {
	s = L[i]
	len = length(s)
	t = s
	sub(/^[ \t]+/, "", t)
	if (pcont || (!incomment && (substr(t, 1, 1) == "#" ||
	    (isyacc && substr(t, 1, 1) == "%"))))
		skip[i] = 1
	pcont = (skip[i] && s ~ /\\$/)
	out = ""
	j = 1
	while (j <= len) {
		c = substr(s, j, 1)
		c2 = substr(s, j, 2)
		if (incomment) {
			if (c2 == "*/") {
				incomment = 0
				out = out "  "
				j += 2
			} else {
				out = out " "
				j++
			}
			continue
		}
		if (c2 == "/*") {
			incomment = 1
			out = out "  "
			j += 2
			continue
		}
		if (c2 == "//") {
			while (j <= len) {
				out = out " "
				j++
			}
			break
		}
		if (c == "\"" || c == "'") {
			q = c
			out = out "_"
			j++
			while (j <= len) {
				c = substr(s, j, 1)
				if (c == "\\") {
					out = out "__"
					j += 2
					continue
				}
				out = out "_"
				j++
				if (c == q)
					break
			}
			continue
		}
		out = out c
		j++
	}
	M[i] = substr(out, 1, len)
}

function isword(c) {
	return c ~ /^[A-Za-z0-9_]$/
}

# The position of the word w in m at or after from, or 0.
function wordat(m, w, from,	p, rest) {
	while (from <= length(m)) {
		rest = substr(m, from)
		p = index(rest, w)
		if (p == 0)
			return 0
		p += from - 1
		if (!isword(substr(m, p - 1, 1)) &&
		    !isword(substr(m, p + length(w), 1)))
			return p
		from = p + 1
	}
	return 0
}

function prevcode(i) {
	for (i--; i >= 1; i--)
		if (!skip[i] && trim(M[i]) != "")
			return i
	return 0
}

function nextcode(i) {
	for (i++; i <= n; i++)
		if (!skip[i] && trim(M[i]) != "")
			return i
	return 0
}

function continued(i,	p) {
	p = prevcode(i)
	return p > 0 && M[p] ~ /(&&|\|\|)[ \t]*$/
}

function assignat(m, j,		pr) {
	pr = substr(m, j - 1, 1)
	return substr(m, j, 1) == "=" && substr(m, j + 1, 1) != "=" &&
	    pr != "=" && pr != "!" && pr != "<" && pr != ">"
}

# The start of the operand ending at j (left of an && or ||), or 0.
function lscan(m, j, i,	depth, c) {
	depth = 0
	while (j >= 1) {
		c = substr(m, j, 1)
		if (c == ")" || c == "]")
			depth++
		else if (c == "(" || c == "[") {
			if (depth == 0)
				return j + 1
			depth--
		} else if (depth == 0) {
			if (index(",;?:{}", c) || assignat(m, j))
				return j + 1
			if (j >= 2 && (substr(m, j - 1, 2) == "&&" ||
			    substr(m, j - 1, 2) == "||"))
				return j + 1
		}
		j--
	}
	if (depth != 0)
		return 0
	if (match(m, /^[ \t]*return[ \t]/))
		return RLENGTH + 1
	if (continued(i))
		return 1
	return 0
}

# The end of the operand starting at j (right of an && or ||), or 0.
function rscan(m, j,	depth, c, len) {
	depth = 0
	len = length(m)
	while (j <= len) {
		c = substr(m, j, 1)
		if (c == "(" || c == "[")
			depth++
		else if (c == ")" || c == "]") {
			if (depth == 0)
				return j - 1
			depth--
		} else if (depth == 0) {
			if (index(",;?:{}", c) || assignat(m, j))
				return j - 1
			if (substr(m, j, 2) == "&&" || substr(m, j, 2) == "||")
				return j - 1
		}
		j++
	}
	return 0
}

function newmut(i, op, desc) {
	nm++
	ML[nm] = i
	MO[nm] = op
	MD[nm] = short(desc)
	NE[nm] = 0
	return nm
}

function edit(k, i, text) {
	NE[k]++
	EL[k, NE[k]] = i
	ET[k, NE[k]] = text
}

# A mutant that changes one line; none that leaves it as it was, none
# made twice.
function emit1(i, op, desc, text) {
	if (text == L[i] || ((i, text) in seen))
		return
	seen[i, text] = 1
	edit(newmut(i, op, desc), i, text)
}

function col(p) {
	return "c" p ": "
}

# The conditions of if and while, each from its ( to its ), which may be
# some lines further; an if's body, braced or not, is a check.
function conds(	i, m, p, w, l, q, depth, c, found, rest, b) {
	ncond = 0
	for (i = 1; i <= n; i++) {
		if (skip[i])
			continue
		m = M[i]
		if (m ~ /(^|[^A-Za-z0-9_])else[ \t]*\{[ \t]*$/)
			chkopen[i] = 1
		if (m ~ /(^|[^A-Za-z0-9_])else[ \t]*$/ &&
		    (b = nextcode(i)) > 0)
			inbody[b] = 1
		for (w = 1; w <= 2; w++) {
			p = 1
			while ((p = wordat(m, w == 1 ? "if" : "while", p)) > 0) {
				q = p + (w == 1 ? 2 : 5)
				while (substr(m, q, 1) == " " ||
				    substr(m, q, 1) == "\t")
					q++
				if (substr(m, q, 1) != "(") {
					p = q
					continue
				}
				depth = 0
				found = 0
				for (l = i; l <= n && l <= i + 12 && !found;
				    l++) {
					if (skip[l])
						break
					c = (l == i) ? q : 1
					for (; c <= length(M[l]); c++) {
						if (substr(M[l], c, 1) == "(")
							depth++
						else if (substr(M[l], c, 1) == ")" &&
						    --depth == 0) {
							found = 1
							break
						}
					}
					if (found)
						break
				}
				if (found) {
					ncond++
					CW[ncond] = (w == 1) ? "if" : "while"
					CI[ncond] = i
					CO[ncond] = q
					CE[ncond] = l
					CC[ncond] = c
					rest = trim(substr(M[l], c + 1))
					if (w == 1 && rest == "{")
						chkopen[l] = 1
					if (w == 1 && rest == "" &&
					    (b = nextcode(l)) > 0)
						inbody[b] = 1
				}
				p = q
			}
		}
	}
}

# Which lines are inside the braces of an if or else body.
function braces(	i, m, j, sp, last) {
	sp = 0
	for (i = 1; i <= n; i++) {
		incheck[i] = inbody[i] || (sp > 0 && STK[sp])
		if (skip[i])
			continue
		m = M[i]
		last = 0
		for (j = 1; j <= length(m); j++)
			if (substr(m, j, 1) == "{")
				last = j
		for (j = 1; j <= length(m); j++) {
			if (substr(m, j, 1) == "{")
				STK[++sp] = (chkopen[i] && j == last)
			else if (substr(m, j, 1) == "}" && sp > 0)
				sp--
		}
	}
}

# Functions start with { and end with } in column 0: whether each
# returns -1 or NULL somewhere decides what its returns are forced to.
function funcs(	i, f, nf) {
	f = nf = 0
	for (i = 1; i <= n; i++) {
		if (L[i] == "{")
			f = ++nf
		FN[i] = f
		if (M[i] ~ /return[ \t(]*-1[ \t)]*;/)
			FNEG[f] = 1
		if (M[i] ~ /return[ \t(]*NULL[ \t)]*;/)
			FPTR[f] = 1
		if (L[i] ~ /^}/)
			f = 0
	}
}

function gen_cond(i,	k, s, t, m, pre, post) {
	for (k = 1; k <= ncond; k++) {
		if (CI[k] != i)
			continue
		if (CW[k] == "if") {
			pre[1] = "(1 || ("
			post[1] = "))"
			t[1] = "if-true"
			pre[2] = "(0 && ("
			post[2] = "))"
			t[2] = "if-false"
			m = 2
		} else {
			pre[1] = "(0 && ("
			post[1] = "))"
			t[1] = "while-false"
			m = 1
		}
		for (s = 1; s <= m; s++)
			cond1(k, t[s], pre[s], post[s])
	}
}

function cond1(k, op, pre, post,	i, e, a, b, mk) {
	i = CI[k]
	e = CE[k]
	a = L[i]
	if (e == i) {
		a = substr(a, 1, CO[k] - 1) pre substr(a, CO[k] + 1, CC[k] - CO[k] - 1) \
		    post substr(a, CC[k] + 1)
		emit1(i, op, col(CO[k]) CW[k] " (" substr(L[i], CO[k] + 1,
		    CC[k] - CO[k] - 1) ")", a)
		return
	}
	a = substr(a, 1, CO[k] - 1) pre substr(a, CO[k] + 1)
	b = substr(L[e], 1, CC[k] - 1) post substr(L[e], CC[k] + 1)
	mk = newmut(i, op, col(CO[k]) CW[k] " (" substr(L[i], CO[k] + 1) \
	    " ... to line " e)
	edit(mk, i, a)
	edit(mk, e, b)
}

function drop(i, a, b, op,	s, t, rep, key) {
	s = substr(L[i], a, b - a + 1)
	t = trim(s)
	if (t == "")
		return
	a += index(s, t) - 1
	b = a + length(t) - 1
	key = i SUBSEP a SUBSEP b SUBSEP op
	if (key in dropped)
		return
	dropped[key] = 1
	rep = (op == "&&") ? "1" : "0"
	emit1(i, op == "&&" ? "and-drop" : "or-drop",
	    col(a) "\"" t "\" to " rep,
	    substr(L[i], 1, a - 1) rep substr(L[i], b + 1))
}

function gen_logic(i,	m, len, p, j, e, op, st) {
	m = M[i]
	len = length(m)
	if (continued(i)) {
		op = (M[prevcode(i)] ~ /&&[ \t]*$/) ? "&&" : "||"
		match(m, /[^ \t]/)
		j = RSTART
		if ((e = rscan(m, j)) > 0)
			drop(i, j, e, op)
	}
	for (p = 1; p < len; p++) {
		op = substr(m, p, 2)
		if (op != "&&" && op != "||")
			continue
		if ((st = lscan(m, p - 1, i)) > 0)
			drop(i, st, p - 1, op)
		if ((e = rscan(m, p + 2)) > 0)
			drop(i, p + 2, e, op)
		p++
	}
}

function gen_rel(i,	m, len, p, c, nx, op, to) {
	m = M[i]
	len = length(m)
	for (p = 1; p <= len; p++) {
		c = substr(m, p, 1)
		nx = substr(m, p + 1, 1)
		op = ""
		if (c == "<" || c == ">") {
			if (c == ">" && substr(m, p - 1, 1) == "-")
				continue
			if (nx == c) {
				p++
				if (substr(m, p + 1, 1) == "=")
					p++
				continue
			}
			op = (nx == "=") ? c "=" : c
		} else if ((c == "=" || c == "!") && nx == "=")
			op = c "="
		else
			continue
		to = NEG[op]
		emit1(i, "rel-flip", col(p) op " to " to,
		    substr(L[i], 1, p - 1) to substr(L[i], p + length(op)))
		if ((to = BND[op]) != "")
			emit1(i, "rel-bound", col(p) op " to " to,
			    substr(L[i], 1, p - 1) to substr(L[i], p + length(op)))
		p += length(op) - 1
	}
}

function gen_ret(i,	m, p, e, x, v, nv, s, depth, j) {
	m = M[i]
	if ((p = wordat(m, "return", 1)) == 0)
		return
	if (m !~ /;[ \t]*$/)
		return
	e = length(m)
	while (substr(m, e, 1) != ";")
		e--
	x = substr(m, p + 6, e - p - 6)
	if (index(x, ";"))
		return
	depth = 0
	for (j = 1; j <= length(x); j++) {
		if (substr(x, j, 1) == "(")
			depth++
		else if (substr(x, j, 1) == ")")
			depth--
	}
	if (depth != 0)
		return
	x = substr(L[i], p + 6, e - p - 6)
	s = x
	gsub(/[ \t()]/, "", s)
	if (s == "" || s ~ /^-?[0-9]+$/ || s ~ /^-?0[xX][0-9a-fA-F]+$/ ||
	    s == "NULL" || s == "true" || s == "false" || s ~ /^'.*'$/ ||
	    s ~ /^".*"$/)
		return
	if (FPTR[FN[i]]) {
		nv = 1
		v[1] = "NULL"
	} else if (FNEG[FN[i]]) {
		nv = 2
		v[1] = "0"
		v[2] = "-1"
	} else {
		nv = 2
		v[1] = "0"
		v[2] = "1"
	}
	for (j = 1; j <= nv; j++)
		emit1(i, "ret=" v[j], col(p) "return " trim(x) " to " v[j],
		    substr(L[i], 1, p + 5) " " v[j] substr(L[i], e))
}

function hexval(s,	j, v) {
	v = 0
	s = tolower(substr(s, 3))
	for (j = 1; j <= length(s); j++)
		v = v * 16 + index("0123456789abcdef", substr(s, j, 1)) - 1
	return v
}

function gen_const(i,	m, len, p, q, tok, num, suf, v, hex, decl, up, dn,
    depth, j) {
	m = M[i]
	len = length(m)
	decl = (m ~ /^[ \t]*(static|const|extern|unsigned|signed|char|short|int|long|float|double|void|bool|size_t|ssize_t|off_t|time_t|pid_t|uid_t|gid_t|u_char|u_int|u_short|u_long|u?int[0-9]+_t|struct|union|enum)[ \t*]/)
	p = 1
	while (p <= len) {
		if (substr(m, p, 1) !~ /[0-9]/) {
			p++
			continue
		}
		q = p
		while (q <= len && substr(m, q, 1) ~ /[0-9A-Za-z_.]/)
			q++
		tok = substr(m, p, q - p)
		if (substr(m, p - 1, 1) ~ /[A-Za-z0-9_$@.]/) {
			p = q
			continue
		}
		if (decl) {
			depth = 0
			for (j = 1; j < p; j++) {
				if (substr(m, j, 1) == "[")
					depth++
				else if (substr(m, j, 1) == "]")
					depth--
			}
			if (depth > 0) {
				p = q
				continue
			}
		}
		num = tok
		suf = ""
		if (match(num, /[uUlL]+$/)) {
			suf = substr(num, RSTART)
			num = substr(num, 1, RSTART - 1)
		}
		hex = (num ~ /^0[xX][0-9a-fA-F]+$/ && length(num) <= 9)
		if (!hex && !(num ~ /^(0|[1-9][0-9]*)$/ && length(num) <= 9)) {
			p = q
			continue
		}
		v = hex ? hexval(num) : num + 0
		if (hex) {
			up = sprintf("0x%x", v + 1) suf
			dn = (v > 0) ? sprintf("0x%x", v - 1) suf : ""
		} else {
			up = (v + 1) suf
			dn = (v > 0) ? (v - 1) suf : "(-1)"
		}
		emit1(i, "const+1", col(p) tok " to " up,
		    substr(L[i], 1, p - 1) up substr(L[i], q))
		if (dn != "")
			emit1(i, "const-1", col(p) tok " to " dn,
			    substr(L[i], 1, p - 1) dn substr(L[i], q))
		p = q
	}
}

function gen_bool(i,	m, p, w, to) {
	m = M[i]
	for (w = 1; w <= 2; w++) {
		p = 1
		while ((p = wordat(m, w == 1 ? "true" : "false", p)) > 0) {
			to = (w == 1) ? "false" : "true"
			emit1(i, "bool-flip", col(p) (w == 1 ? "true" : "false") \
			    " to " to, substr(L[i], 1, p - 1) to \
			    substr(L[i], p + (w == 1 ? 4 : 5)))
			p++
		}
	}
}

function gen_del(i,	m, t, depth, j, w, ind) {
	if (!incheck[i])
		return
	m = M[i]
	t = trim(m)
	if (t !~ /;$/)
		return
	depth = 0
	for (j = 1; j <= length(t); j++) {
		if (substr(t, j, 1) == "(")
			depth++
		else if (substr(t, j, 1) == ")")
			depth--
	}
	if (depth != 0)
		return
	match(t, /^[A-Za-z_][A-Za-z0-9_]*/)
	w = substr(t, 1, RLENGTH)
	if (w ~ /^(return|goto|break|continue)$/)
		;
	else if (w ~ /^(if|while|for|switch|do|else|case|default|sizeof|static|const|extern|unsigned|signed|char|short|int|long|float|double|void|bool|size_t|ssize_t|off_t|time_t|pid_t|uid_t|gid_t|u_char|u_int|u_short|u_long|u?int[0-9]+_t|struct|union|enum|log_debug|log_info|log_warn|log_warnx|free|freezero)$/)
		return
	else if (t ~ /^[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/ ||
	    t ~ /^[*(]*[A-Za-z_][A-Za-z0-9_.>\[\]-]*[ \t]*([-+*\/|&^%]|<<|>>)?=[^=]/ ||
	    t ~ /^[A-Za-z_][A-Za-z0-9_.>-]*(\+\+|--);$/)
		;
	else
		return
	match(L[i], /^[ \t]*/)
	ind = substr(L[i], 1, RLENGTH)
	emit1(i, "del-stmt", col(RLENGTH + 1) trim(L[i]), ind "{}")
}

BEGIN {
	NEG["<"] = ">="
	NEG["<="] = ">"
	NEG[">"] = "<="
	NEG[">="] = "<"
	NEG["=="] = "!="
	NEG["!="] = "=="
	BND["<"] = "<="
	BND["<="] = "<"
	BND[">"] = ">="
	BND[">="] = ">"
}

FNR == 1 {
	isyacc = (FILENAME ~ /\.y$/)
}

{
	L[++n] = $0
}

END {
	for (i = 1; i <= n; i++)
		mask(i)
	funcs()
	conds()
	braces()
	nm = 0
	for (i = 1; i <= n; i++) {
		if (skip[i])
			continue
		gen_cond(i)
		gen_logic(i)
		gen_rel(i)
		gen_ret(i)
		gen_const(i)
		gen_bool(i)
		gen_del(i)
	}
	if (apply == "") {
		for (k = 1; k <= nm; k++)
			printf "%d\t%d\t%s\t%s\n", k, ML[k], MO[k], MD[k]
		exit 0
	}
	k = apply + 0
	if (k < 1 || k > nm) {
		print "mutgen: no mutant " apply > "/dev/stderr"
		exit 1
	}
	for (j = 1; j <= NE[k]; j++)
		R[EL[k, j]] = ET[k, j]
	for (i = 1; i <= n; i++)
		print ((i in R) ? R[i] : L[i])
}
