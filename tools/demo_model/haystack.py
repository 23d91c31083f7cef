"""Seeded generator of synthetic long documents with facts ("needles"), and questions about them.

A document is a title line and paragraphs of filler sentences (report-like and narrative-like
templates) with facts "The access code for the north gate is 7391." placed at chosen depths. Every
fact is about a different entity (modifier + place) of its document, so every question has exactly
one answer, which can only be found by reading the document (values are random); many facts are
look-alike distractors of others (the same place with another modifier, "south gate", or the same
modifier with another place), and attributes repeat freely.

Lengths are measured in tokens through a `count_tokens(text) -> int` callback (the SentencePiece
model once it exists; a word count before, when generating the tokenizer's corpus).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence

import wordlists as W


@dataclass(frozen=True)
class Fact:
    attribute: str
    modifier: str
    place: str
    value: str

    @property
    def key(self):
        return (self.attribute, self.modifier, self.place)

    def sentence(self) -> str:
        return W.FACT_TEMPLATE.format(attribute=self.attribute, modifier=self.modifier, place=self.place,
                                      value=self.value)

    def question(self) -> str:
        return W.QUESTION_TEMPLATE.format(attribute=self.attribute, modifier=self.modifier, place=self.place)

    def answer(self) -> str:
        """The trained answer restates the fact: "The access code for the north gate is 7391." """
        return self.sentence()


@dataclass
class Document:
    text: str
    facts: List[Fact]            # in document order
    depths: List[float]          # each fact's depth in [0, 1] (sentence index / sentence count)
    est_tokens: int              # estimate from per-sentence counts
    sentences: List[str] = field(default_factory=list)


# The modifiers and places facts are about (all of them unless a training run narrows them with
# use_fact_entities; filler sentences always use the full lists).
FACT_MODIFIERS = list(W.MODIFIERS)
FACT_PLACES = list(W.PLACES)


def use_fact_entities(n_modifiers: int, n_places: int) -> None:
    """Facts name only the first n_modifiers x n_places entities (fewer identities to tell apart)."""
    FACT_MODIFIERS[:] = W.MODIFIERS[:n_modifiers]
    FACT_PLACES[:] = W.PLACES[:n_places]


def random_value(rng: random.Random) -> str:
    return rng.choice(W.VALUE_POOL)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def filler_sentence(rng: random.Random) -> str:
    name = rng.choice(W.NAMES)
    fields = dict(
        name=name, Name=_cap(name), name2=rng.choice(W.NAMES), verb=rng.choice(W.VERBS),
        verb2=rng.choice(W.VERBS), noun=rng.choice(W.NOUNS), noun2=rng.choice(W.NOUNS),
        plural=rng.choice(W.PLURALS), adj=rng.choice(W.ADJECTIVES), time=rng.choice(W.TIMES),
        event=rng.choice(W.EVENTS), town=rng.choice(W.TOWNS), small=str(rng.randint(2, 99)),
        place=rng.choice(W.PLACES), modifier=rng.choice(W.MODIFIERS),
    )
    return _cap(rng.choice(W.FILLER_TEMPLATES).format(**fields))


def make_facts(rng: random.Random, n: int, distractor_rate: float = 0.5) -> List[Fact]:
    """n facts about n different entities (modifier + place), with distinct values; about
    distractor_rate of them name an entity that looks like an earlier one (same place with another
    modifier, "south gate" next to "north gate", or same modifier with another place). Attributes
    are drawn freely, so the entity is what tells facts apart."""
    facts: List[Fact] = []
    entities = set()
    values = set()
    while len(facts) < n:
        if facts and rng.random() < distractor_rate:
            base = rng.choice(facts)
            if rng.random() < 0.5:
                entity = (rng.choice(FACT_MODIFIERS), base.place)
            else:
                entity = (base.modifier, rng.choice(FACT_PLACES))
        else:
            entity = (rng.choice(FACT_MODIFIERS), rng.choice(FACT_PLACES))
        if entity in entities:
            continue
        attribute = rng.choice(W.ATTRIBUTES)
        value = random_value(rng)
        if value in values:
            continue
        entities.add(entity)
        values.add(value)
        facts.append(Fact(attribute, entity[0], entity[1], value))
    return facts


def build_document(rng: random.Random, target_tokens: int, count_tokens: Callable[[str], int],
                   facts: Sequence[Fact], depths: Optional[Sequence[float]] = None) -> Document:
    """A document of about target_tokens tokens holding `facts`, fact i at depth depths[i] (random
    when None): the fraction of the document's sentences that come before it."""
    title = rng.choice(W.TITLE_TEMPLATES).format(town=rng.choice(W.TOWNS))
    title = _cap(title)
    used = count_tokens(title) + 2
    fact_sentences = [f.sentence() for f in facts]
    used += sum(count_tokens(s) for s in fact_sentences)
    filler: List[str] = []
    while used < target_tokens:
        s = filler_sentence(rng)
        filler.append(s)
        used += count_tokens(s)
    if depths is None:
        depths = [rng.random() for _ in facts]
    # Insert facts by depth: slot = round(depth * n_filler); ties keep the facts' given order.
    order = sorted(range(len(facts)), key=lambda i: (round(depths[i] * len(filler)), i))
    sentences: List[str] = []
    placed_facts: List[Fact] = []
    placed_depths: List[float] = []
    k = 0
    for slot in range(len(filler) + 1):
        while k < len(order) and round(depths[order[k]] * len(filler)) == slot:
            sentences.append(fact_sentences[order[k]])
            placed_facts.append(facts[order[k]])
            placed_depths.append(depths[order[k]])
            k += 1
        if slot < len(filler):
            sentences.append(filler[slot])
    # Paragraphs of 3 to 8 sentences.
    paragraphs: List[str] = []
    i = 0
    while i < len(sentences):
        n = rng.randint(3, 8)
        paragraphs.append(" ".join(sentences[i:i + n]))
        i += n
    text = title + "\n\n" + "\n".join(paragraphs)
    return Document(text=text, facts=placed_facts, depths=placed_depths, est_tokens=used, sentences=sentences)


def training_document(rng: random.Random, target_tokens: int, count_tokens: Callable[[str], int],
                      min_per: float = 25, max_per: float = 100) -> Document:
    """A training document: fact density varies (one fact per min_per to max_per tokens, at least 1).
    Dense facts give many questions per document and many distractors, so that only exact key
    matching answers them."""
    per = rng.uniform(min_per, max_per)
    n = max(1, int(target_tokens / per))
    facts = make_facts(rng, n, distractor_rate=rng.uniform(0.2, 0.8))
    return build_document(rng, target_tokens, count_tokens, facts)


def niah_document(rng: random.Random, target_tokens: int, count_tokens: Callable[[str], int], depth: float,
                  facts_per_1k: int = 10):
    """Needle-in-a-haystack: a needle at `depth` plus distractor facts at random depths.
    Returns (document, needle)."""
    n = max(2, round(target_tokens * facts_per_1k / 1000))
    facts = make_facts(rng, n, distractor_rate=0.6)
    depths = [depth] + [rng.random() for _ in facts[1:]]
    doc = build_document(rng, target_tokens, count_tokens, facts, depths)
    return doc, facts[0]


def word_count(text: str) -> int:
    return len(text.split())
