"""A pure-Python reader and encoder for the demo's SentencePiece BPE model (`tok.model`).

The training scripts use the `sentencepiece` package when it is installed (Debian:
python3-sentencepiece). A GPU machine that has PyTorch but not that package still runs them:
`load(path)` falls back to this class, which implements the part of the library the scripts use —
the model file's protobuf, identity normalization with the dummy prefix, user-defined pieces matched
first (longest match), BPE merges by piece score, byte fallback — for models trained by
train_tokenizer.py. `python3 spm_lite.py tok.model` checks it against the package on generated
documents (run it wherever both exist).
"""
import heapq
import struct
import sys

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
SPACE = "\u2581"


def _varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def _fields(buf):
    """(field number, wire type, value) of one protobuf message; value is int, bytes or float."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 2:
            n, i = _varint(buf, i)
            value, i = buf[i:i + n], i + n
        elif wire == 5:
            value, i = struct.unpack("<f", buf[i:i + 4])[0], i + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value


class SentencePieceLite:
    def __init__(self, model_file):
        with open(model_file, "rb") as f:
            buf = f.read()
        self.pieces, self.scores, self.types = [], [], []
        self._unk, self._bos, self._eos = 0, 1, 2
        for number, _, value in _fields(buf):
            if number == 1:  # ModelProto.pieces
                piece, score, kind = "", 0.0, NORMAL
                for n, _, v in _fields(value):
                    if n == 1:
                        piece = v.decode("utf-8")
                    elif n == 2:
                        score = v
                    elif n == 3:
                        kind = v
                self.pieces.append(piece)
                self.scores.append(score)
                self.types.append(kind)
            elif number == 2:  # TrainerSpec: unk_id 40, bos_id 41, eos_id 42
                for n, _, v in _fields(value):
                    if n == 40:
                        self._unk = v
                    elif n == 41:
                        self._bos = v
                    elif n == 42:
                        self._eos = v
        self._id = {p: i for i, p in enumerate(self.pieces)}
        # Pieces BPE may form by merging, and the user-defined pieces matched before any merging.
        self._mergeable = {p: i for i, p in enumerate(self.pieces) if self.types[i] in (NORMAL, USER_DEFINED)}
        self._user = {p for i, p in enumerate(self.pieces) if self.types[i] == USER_DEFINED}
        self._user_lengths = sorted({len(p) for p in self._user}, reverse=True)  # longest match first
        # BPE pieces never span a word boundary (the trainer splits at whitespace), so each word
        # can be encoded on its own and remembered: generated documents repeat their words.
        self._word_cache = {}
        self._words_are_independent = not any(
            SPACE in p[1:] for i, p in enumerate(self.pieces) if self.types[i] == NORMAL)
        self._byte = {}
        for i, p in enumerate(self.pieces):
            if self.types[i] == BYTE:
                self._byte[int(p[3:5], 16)] = i

    # --- the subset of sentencepiece.SentencePieceProcessor the scripts use --------------------
    def get_piece_size(self):
        return len(self.pieces)

    def id_to_piece(self, i):
        return self.pieces[i]

    def piece_to_id(self, piece):
        return self._id.get(piece, self._unk)

    def get_score(self, i):
        return self.scores[i]

    def bos_id(self):
        return self._bos

    def eos_id(self):
        return self._eos

    def unk_id(self):
        return self._unk

    def is_unknown(self, i):
        return self.types[i] == UNKNOWN

    def is_control(self, i):
        return self.types[i] == CONTROL

    def is_byte(self, i):
        return self.types[i] == BYTE

    def is_unused(self, i):
        return self.types[i] == UNUSED

    def encode(self, text, out_type=int):
        if not text:
            return []
        normalized = SPACE + text.replace(" ", SPACE)  # identity rule, dummy prefix, spaces kept
        # User-defined pieces first (longest match), then BPE over the text between them.
        ids, run, i = [], [], 0
        while i < len(normalized):
            match = next((normalized[i:i + n] for n in self._user_lengths if normalized[i:i + n] in self._user), None)
            if match:
                ids.extend(self._encode_run("".join(run)))
                run = []
                ids.append(self._id[match])
                i += len(match)
            else:
                run.append(normalized[i])
                i += 1
        ids.extend(self._encode_run("".join(run)))
        if out_type is str:
            return [self.pieces[i] for i in ids]
        return ids

    def _encode_run(self, run):
        if not run:
            return []
        if not self._words_are_independent:
            return self._bpe(run)
        ids, start = [], 0
        for k in range(1, len(run) + 1):
            if k == len(run) or run[k] == SPACE:
                word = run[start:k]
                cached = self._word_cache.get(word)
                if cached is None:
                    cached = self._word_cache[word] = self._bpe(word)
                ids.extend(cached)
                start = k
        return ids

    def _bpe(self, text):
        """BPE over the characters of `text`: repeatedly merge the adjacent pair whose concatenation
        is the best-scoring piece (the leftmost one on ties), as the library's agenda does."""
        symbols = list(text)
        n = len(symbols)
        prev = list(range(-1, n - 1))
        nxt = list(range(1, n + 1))
        nxt[-1] = -1
        alive = [True] * n
        heap = []

        def push(left):
            right = nxt[left]
            if right < 0:
                return
            pid = self._mergeable.get(symbols[left] + symbols[right])
            if pid is not None:
                heapq.heappush(heap, (-self.scores[pid], left, symbols[left] + symbols[right]))

        for k in range(n - 1):
            push(k)
        while heap:
            _, left, piece = heapq.heappop(heap)
            right = nxt[left] if alive[left] else -1
            if right < 0 or symbols[left] + symbols[right] != piece:
                continue  # stale entry
            symbols[left] = piece
            alive[right] = False
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            if prev[left] >= 0:
                push(prev[left])
            push(left)
        ids = []
        k = 0
        while 0 <= k < n:
            pid = self._id.get(symbols[k])
            if pid is not None and self.types[pid] != UNUSED:
                ids.append(pid)
            elif self._byte:
                ids.extend(self._byte[b] for b in symbols[k].encode("utf-8"))
            else:
                ids.append(self._unk)
            k = nxt[k]
        return ids


def load(model_file):
    """The sentencepiece package's processor when installed, else SentencePieceLite."""
    try:
        import sentencepiece as spm
        return spm.SentencePieceProcessor(model_file=model_file)
    except ImportError:
        return SentencePieceLite(model_file)


def _check(model_file, docs=300):
    """Compares SentencePieceLite with the sentencepiece package on generated text."""
    import os
    import random
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import haystack
    import sentencepiece as spm
    ref = spm.SentencePieceProcessor(model_file=model_file)
    lite = SentencePieceLite(model_file)
    assert lite.get_piece_size() == ref.get_piece_size()
    assert (lite.bos_id(), lite.eos_id(), lite.unk_id()) == (ref.bos_id(), ref.eos_id(), ref.unk_id())
    for i in range(ref.get_piece_size()):
        assert lite.id_to_piece(i) == ref.id_to_piece(i) and abs(lite.get_score(i) - ref.get_score(i)) < 1e-6
        assert (lite.is_control(i), lite.is_byte(i), lite.is_unknown(i)) == (ref.is_control(i), ref.is_byte(i),
                                                                               ref.is_unknown(i))
    rng = random.Random(5)
    texts = ["\n", "Question: What is it?", "héllo wörld ✓ 12345", "  two  spaces ", "a\tb"]
    for _ in range(docs):
        doc = haystack.training_document(rng, rng.randint(64, 600), lambda s: len(ref.encode(s)) + 1)
        texts.append(doc.text)
        texts.extend(f.question() for f in doc.facts[:2])
    bad = 0
    for t in texts:
        if lite.encode(t) != ref.encode(t):
            bad += 1
            if bad <= 3:
                print("MISMATCH:", repr(t[:80]), lite.encode(t, out_type=str)[:20], ref.encode(t, out_type=str)[:20])
    print(f"{len(texts) - bad}/{len(texts)} texts encode identically")
    return bad == 0


if __name__ == "__main__":
    sys.exit(0 if _check(sys.argv[1]) else 1)
