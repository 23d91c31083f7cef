"""Word lists and sentence templates of the synthetic documents (the single source of truth).

The C++ evaluation (app/eval/haystack.cpp) uses the same lists through app/eval/haystack_lists.inc,
which `python3 tools/demo_model/gen_cpp_lists.py` writes from this file; a unit test compares the
C++ generator's style with these lists (tests/unit/test_eval_haystack.cpp).

Facts read "The {attribute} for the {modifier} {place} is {value}." and questions read
"What is the {attribute} for the {modifier} {place}?"; values are 4-digit numbers from VALUE_POOL.
"""

# What a fact is about: attribute (a kind of number) for an entity (modifier + place).
ATTRIBUTES = [
    "access code", "room number", "serial number", "budget code", "shipment number",
    "badge number", "locker number", "phone extension", "license number", "account number",
    "order number", "ticket number", "batch number", "permit number", "case number",
    "vault code", "alarm code", "parcel number", "invoice number", "contract number",
]
MODIFIERS = [
    "north", "south", "east", "west", "upper", "lower", "old", "new", "red", "blue",
    "green", "silver", "main", "river", "harbor", "garden", "central", "hill", "stone", "winter",
    # Widened for 128K-token documents (~1300 facts about distinct entities): 40 x 48 = 1920 entities.
    "amber", "copper", "golden", "iron", "maple", "cedar", "pine", "coral", "ivory", "crystal",
    "summer", "misty", "rocky", "sandy", "royal", "lake", "forest", "meadow", "canal", "bay",
]
PLACES = [
    "gate", "warehouse", "tower", "library", "office", "station", "bridge", "laboratory",
    "archive", "garage", "clinic", "museum", "depot", "studio", "kitchen", "workshop",
    "hangar", "theater", "mill", "chapel", "market", "school", "bakery", "pier",
    "cellar", "courtyard", "shed", "barn", "tunnel", "quarry", "dock", "terminal",
    "pavilion", "observatory", "greenhouse", "foundry", "granary", "armory", "gallery", "hospital",
    "hotel", "pharmacy", "stable", "lighthouse", "boathouse", "substation", "cafeteria", "dormitory",
]

# Filler vocabulary (report-like and narrative-like sentences, no 4-digit numbers).
NAMES = [
    "Anna", "Marek", "Lucia", "Tomas", "Greta", "Oskar", "Nadia", "Pavel", "Irene", "Hugo",
    "Clara", "Victor", "Elena", "Jonas", "Maria", "Felix", "Sofia", "Bruno", "Ada", "Leon",
    "the manager", "the inspector", "the engineer", "the treasurer", "the director", "the clerk",
]
VERBS = [
    "checked", "cleaned", "painted", "visited", "measured", "repaired", "described", "moved",
    "inspected", "photographed", "opened", "closed", "counted", "recorded", "examined", "guarded",
]
NOUNS = [
    "report", "ledger", "roof", "window", "engine", "garden", "fence", "boiler", "schedule",
    "map", "ladder", "lamp", "cart", "printer", "cabinet", "stairway", "wagon", "harvest",
    "shipment", "inventory", "budget", "letter", "statue", "boat", "clock", "barrel",
]
PLURALS = [
    "visitors", "workers", "boxes", "trucks", "letters", "birds", "chairs", "lamps", "crates",
    "students", "tourists", "barrels", "horses", "tables", "windows", "books", "sailors", "tools",
]
ADJECTIVES = [
    "quiet", "busy", "clean", "damaged", "ready", "late", "crowded", "empty", "cold", "warm",
    "bright", "dusty", "careful", "new", "safe", "noisy", "slow", "finished", "broken", "tidy",
]
TIMES = [
    "on Monday", "on Tuesday", "on Wednesday", "on Thursday", "on Friday", "on Saturday",
    "in the morning", "in the evening", "after lunch", "before dawn", "last week", "in spring",
    "during the storm", "at noon", "in the autumn", "yesterday",
]
EVENTS = [
    "inspection", "festival", "meeting", "storm", "audit", "harvest", "repair work", "winter",
    "holiday", "market day", "night shift", "survey",
]
TOWNS = [
    "the harbor district", "the old town", "the valley", "the eastern quarter", "the river port",
    "the mountain village", "the city center", "the northern farms",
]

# Filler templates. Fields: {name} {Name} (capitalised), {verb} {noun} {noun2} {plural} {adj}
# {time} {event} {town} {small} (a number below 100), {place}, {modifier}.
FILLER_TEMPLATES = [
    "{Name} {verb} the {noun} near the {modifier} {place} {time}.",
    "The {noun} in {town} was {adj} {time}.",
    "{Name} said that the {noun} would be {adj} soon.",
    "During the {event}, {name} {verb} {small} {plural}.",
    "Most of the {plural} in {town} were {adj}.",
    "{Name} {verb} the {noun} and then {verb2} the {noun2}.",
    "The {event} in {town} was {adj}, and {name} {verb} the {noun}.",
    "Nobody {verb} the {noun} {time}.",
    "About {small} {plural} waited near the {place} {time}.",
    "{Name} wrote a letter about the {adj} {noun}.",
    "The {modifier} {place} was {adj} during the {event}.",
    "In {town}, the {plural} were counted {time}.",
    "{Name} and {name2} {verb} the {noun} together.",
    "The {noun} was {adj}, so {name} {verb} it again.",
    "It was {adj} in {town} {time}.",
    "The report on the {noun} mentions {small} {plural}.",
]

# Values: 2000 four-digit numbers, fixed once: the 1000 of the first demo model
# (random.Random(2024).sample(range(1000, 10000), 1000)) and 1000 more drawn from the rest
# (random.Random(2025)), widened for 128K-token documents, which hold ~1300 facts with distinct
# values; sorted. Keeping the first 1000 keeps every earlier document (resources/samples/demo-report.txt)
# readable by the widened tokenizer. Each value is one user-defined piece of the tokenizer, so a value
# reads as the same single token in a document and in an answer (see train_tokenizer.py).
import random as _random

_FIRST_VALUES = _random.Random(2024).sample(range(1000, 10000), 1000)
_MORE_VALUES = _random.Random(2025).sample(sorted(set(range(1000, 10000)) - set(_FIRST_VALUES)), 1000)
VALUE_POOL = sorted(str(v) for v in _FIRST_VALUES + _MORE_VALUES)

FACT_TEMPLATE = "The {attribute} for the {modifier} {place} is {value}."
QUESTION_TEMPLATE = "What is the {attribute} for the {modifier} {place}?"

# Titles that open a document ("Report on the harbor district").
TITLE_TEMPLATES = [
    "Report on {town}",
    "Notes from {town}",
    "Records of {town}",
    "A week in {town}",
]
