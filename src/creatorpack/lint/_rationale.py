"""Why each lint rule exists: the rationale paragraph of its section in ``docs/lint.md``.

SARIF output carries it as the rule's help; a test keeps this table and the documentation word for
word the same.
"""

from __future__ import annotations

from typing import Final

__all__ = ["RATIONALES"]

RATIONALES: Final[dict[str, str]] = {
    "unknown-reference": (
        "A reference that names nothing breaks the pack at run time: the host looks up the asset, "
        "illustration, entry, badge or observation and finds none. Every field named `*_id` or "
        "`*_ids` is checked against its collection (assets, illustrations, entries — runtime and "
        "pack entries with an `id` —, badges, achievements, endings, castings, observations in "
        "`observed`, visual anchors); covers, artwork, pin fronts and masks, bindings and "
        "generation inputs included."
    ),
    "unknown-actor": (
        "0.3 to 0.5 packs have no actor collection; creatorpack reads the reader cards of kind "
        "`actor` as the actors. A warning, because the reading is a guess (see "
        "docs/contract-gaps.md)."
    ),
    "duplicate-id": ("Two items with one id make every reference to it ambiguous."),
    "output-sha256-mismatch": (
        "A generation record describes the file it produced; a different hash means the record belongs to another file."
    ),
    "input-sha256-mismatch": (
        "An input asset's recorded hash must be the hash of the asset it names, or provenance is wrong."
    ),
    "path-not-pointer": (
        "Paths are JSON Pointers; anything else never resolves, so the condition is always false "
        "and the effect always rejected."
    ),
    "unknown-state-path": ("A path the state schema does not have never resolves."),
    "comparison-type-mismatch": (
        "`gt`/`gte`/`lt`/`lte` hold only between numbers, `contains` needs a set (or string), and "
        "`eq` against a value of another type never holds."
    ),
    "value-out-of-range": (
        "Comparing with a value the state can never take (outside an integer's range, or not in a "
        "set's enum) is almost always a typo. It is reported once, here: the condition's `never-holds` "
        "would only repeat it."
    ),
    "observed-value-mismatch": (
        "A boolean observation is answered true or false; a choice observation with one of its "
        "choice keys. Any other value never matches."
    ),
    "effect-type-mismatch": (
        "`increment` needs an integer, `add`/`remove` a set and a value from its enum; otherwise "
        "the runtime rejects the effect every time."
    ),
    "unknown-progression-protocol": (
        "0.4 does not show its progression's `protocol`, so any string is valid; but the container it "
        "describes is the one 0.5 calls `service.progression/1`, and a host that reads the protocol to "
        "pick a container finds none for another value (`service.progression/2`, the guided container, "
        "exists from 0.5). Usually a typo."
    ),
    "cover-kind": (
        "The contract only asks the covers for asset ids; but the catalog shows `cover_asset_id` as a "
        "picture and `cover_motion_asset_id` as a moving one. An audio or video asset as the still "
        "cover, or a still image or audio as the motion cover, is almost always the two ids swapped "
        "or the wrong asset picked."
    ),
    "rule-without-when": (
        "The contract does not show an effect rule's shape, so a rule without `when` is valid, and "
        "the runtime reads a missing `when` as always true: the rule fires, and its effects apply, on "
        "every turn. That is rarely meant: the `when` was forgotten, or misspelt (`whn`, which "
        "`ignored-member` names too). A rule meant to fire on every turn says so with "
        '`{"op": "literal", "value": true}`, which this rule leaves alone.'
    ),
    "unplayed-scope": (
        "A reader card, a casting, a content item or an illustration with `entry_ids` belongs to thos"
        'e entries only (docs/runtime.md, "Entry scope"). A session starts at a runtime entry, which '
        "`entry_ids` name by its id or by its pack entry's (the one with the same id, else the one at"
        " the same position). A pack entry that no runtime entry pairs with (an `epilogue` written ah"
        "ead of its runtime entry) starts no session, so an item scoped to it alone is valid and neve"
        "r shown. Usually a runtime entry is missing, or the ids were renamed on one side only."
    ),
    "binding-role": (
        "A binding whose `role` is `background` is a BackgroundBinding, which hosts show behind the "
        "scene at its `time_of_day`; the contract accepts any other binding object, because the other "
        "variants are not shown. So a misspelt role (`backgorund`, `Background`), or another word for it (`backdrop`) "
        "on a binding that has a background's `time_of_day` and nothing of a character's (a `performance`, "
        "an `actor_id`, the role `character`), is valid "
        "and never shown as a background. Other roles (`foreground`) without a `time_of_day` are left "
        "alone: the contract may have them."
    ),
    "increment-by-zero": (
        "An increment adds its `by` to the integer each time its rule applies; by 0 it never changes "
        "anything, so whatever waits for the integer to move waits forever. Usually a placeholder left "
        "in, or a sign typed as a digit."
    ),
    "limit-out-of-range": (
        "An increment's `limit` bounds the side it moves to: above for a positive `by`, below for a "
        "negative one. Beyond the integer's range on that side (an upper limit below its minimum, a "
        "lower limit above its maximum) it contradicts the schema, which always wins: the increment "
        "then sets the integer to that end of its range every time it applies (or, with "
        '`overflow: "reject"`, is always rejected). Almost always a sign error or a typo.'
    ),
    "initial-state-mismatch": ("A session cannot start from a state outside its schema (the runtime refuses it)."),
    "unresolved-condition-ref": (
        "A requirement's `condition_ref` must point at a sub-condition of its item's `when`, "
        "stepping through `all`/`any` groups, or its progress can never be shown."
    ),
    "never-holds": (
        "Interval and set reasoning over the state schema's bounds and enums and the observations' "
        "answers shows that the condition cannot be true in any state: `gt /trust 10` when the "
        "maximum is 10, `all` of x and not x, a choice that does not exist. The finding points at "
        "the smallest part that cannot hold (a sub-condition of an `all`, or the `all` whose parts "
        'contradict each other) and says why: "`/trust` is at most 10", "`/lamp_lit` cannot be both '
        'true and false".'
    ),
    "unreachable": (
        "No sequence of turns from any entry unlocks the achievement, reaches the ending, activates "
        "the rule or completes it: proved on an over-approximation of every reachable state (see "
        '"Reachability, decided"), or by a search that explored every reachable state ("no play reaches '
        'it: all N reachable states were explored"). The message says why.'
        " It points at the part of the condition that cannot hold "
        "(`/progression/achievements/3/when/conditions/1`, the `gte` to fix), when every entry blames "
        "the same part; otherwise (an ending that another ending beats, a proof by the search) at the "
        "item. `never-revealed` points the same way."
    ),
    "never-revealed": (
        "An item with a `reveal_when` (a reader card, its avatar, image or relationships, an asset, a "
        "visual anchor) or a casting, deed or knowledge with a `when` is shown once that condition "
        "holds in a session of an entry it belongs to. No sequence of turns makes it hold there: "
        "proved as for `unreachable`, and the message says why. A card's avatar or image is also never "
        "shown when readers can never reach its asset (a `reward_only` one that no reward gives, or one "
        "never revealed). The pack is valid, and the item is "
        "shipped for nothing. A warning, because a creator may keep an item for a later revision. "
        "Reveals that the search neither makes nor proves impossible are not reported."
    ),
    "reachability-bound": (
        "The goal was neither proved unreachable nor reached within the searches' bounds "
        "(`--max-states`, in states for the exhaustive search; deterministic; the message says how many "
        "states were explored and turns played, or why the exhaustive search did not start, and, when "
        "the boxes turn by turn (packs of at most 2,000 rules) show it, how many turns any play that "
        "reaches the goal takes at "
        "least, and the invariant a proof lacked: the states the goal needs, which no reachable state "
        "would have to be in for a proof, named with the ranges the boxes allow, and, where the guided "
        "search's turns never took a member there, what they left it at: evidence of the invariant, not a "
        "proof), or the safety-net time "
        "limit (`--max-seconds`) stopped the search first, which the message then "
        "says. Raise the bound or simplify. `creatorpack lint --explain ID` prints a witness for "
        "goals that were reached, and the reason for goals proved unreachable."
    ),
    "artwork-not-revealed": (
        "An achievement's or ending's `artwork_asset_id` is what the reader is shown when it unlocks, but "
        "the reader view serves an asset only once the asset's own `reveal_when` has held (and a "
        "`reward_only` one once a reward gives it). A play that unlocks the achievement before its art "
        "is revealed shows the achievement with no art. The finding replays the turns that reach it "
        "(`creatorpack lint --explain ID`) and reports it only when, at the turn it unlocks, its art is "
        "not served: a real play, never a guess. A warning, because the art may come later."
    ),
    "rejected-rule": (
        'An increment with `overflow: "reject"` that would leave its integer\'s range is rejected, '
        "and the rejection undoes every effect of its rule. When the integer cannot hold a value the "
        "increment accepts at any point where the rule fires, in any reachable state, the rule "
        "never changes the state: a purchase the purse can never pay for adds nothing. The message "
        "names the increment and the values its integer holds there."
    ),
    "spoiler-title": (
        "Everything the reader view and the catalog show is public before anyone plays: the manifest's "
        "title; the publication's tagline, description, creator credit, rights statement and tags; the "
        "entries' titles; the visible and guided achievements' titles and descriptions, and the titles of"
        " the badges they award; the reader cards, and their relationships, revealed at the start of the "
        "default entry. Naming there, as whole words, the title of a hidden achievement, of an ending or "
        "of a badge that only those award gives it away. Titles are matched however the text spells them "
        "(case, curly quotes, spaces of any kind or count, a hyphen, dash or zero-width space for a "
        "space, other zero-width characters and soft hyphens inside a word, accents composed or "
        "decomposed (a letter with another mark, or none, is another letter), fullwidth letters, the "
        "title's own end punctuation). A title of one word (or of one or two characters of a script "
        "written without spaces) is sought only in a text that is that word and nothing more, such as a "
        "tag: in running text such a word tells nothing. Genres, content warnings and audiences are a "
        "shared vocabulary and are not read. The message names the field and the item."
    ),
    "spoiler-asset": (
        "Everyone sees the cover (`cover_asset_id`, `cover_motion_asset_id`) before playing. A "
        "`reward_only` asset is meant to be earned; an asset whose `reveal_when` does not hold at the "
        "start of the default entry is meant to be revealed by playing; the artwork of a hidden "
        "achievement or of an ending, and the front or effect mask of a badge that only those award, "
        "show what readers should discover, unless readers have it at the start anyway (art that a "
        "visible achievement or a listed badge also wears, or that is revealed at the start). The "
        "message names the cover and each reason."
    ),
    "unused-asset": (
        "With `--assets`: an asset that nothing references (no `*_asset_id`, binding, cover, reward "
        "or generation input) is shipped for nothing. A warning: a host may still show revealed "
        "assets on its own."
    ),
    "asset-file-missing": (
        "With `--assets DIR`: every asset needs its file, named by its sha256 (any extension) or "
        "found at its `uri` relative to DIR (an absolute `uri`, or one with a `..` segment, is not looked up: "
        "a pack cannot make lint read a file outside DIR)."
    ),
    "asset-sha256-mismatch": ("With `--assets`: the file's content must hash to the asset's `sha256`."),
    "asset-size-mismatch": ("With `--assets`: `byte_size` must be the file's size."),
    "asset-mime-mismatch": (
        "With `--assets`: the file's first bytes (PNG, APNG, JPEG, WebP, WAV, MP3, MP4 signatures) "
        "must show its `mime_type`."
    ),
    "unlisted-file": ("With `--assets`: a file in DIR that no asset names (by sha256 or uri) is probably stale."),
    "unknown-rule-kind": (
        "The contract shows one rule kind, `guidance`; any other rule is accepted as an "
        "effect-carrying rule, and the runtime plays it as one. A misspelt `guidance` therefore "
        "passes validation, but its instruction is never given to the narrator. The runtime knows "
        "`guidance` and `effect`; the finding suggests the nearest."
    ),
    "unknown-effect-op": (
        "The contract accepts effects of ops it does not show, but the runtime applies only "
        "`increment`, `add` and `remove`. Any other op is rejected every time the rule fires, and "
        "with it the rule's other effects (a rule applies all of its effects or none). The finding "
        "suggests the nearest op. An error, because it is a cause: a misspelt op (`incremnt`) leaves "
        "its value unchanged for ever, and every goal that needed the change would otherwise be "
        'reported as `unreachable` with "no effect changes it", the symptom graded above its cause. '
        "As an error it stops the reachability search, so the op is fixed first."
    ),
    "ignored-member": (
        "Where the contract leaves an object open, a misspelt member passes validation and is "
        "silently dropped: a root member the pack's version does not have (a 0.4 "
        "`character_castings` in a 0.3 pack, `publicaton`), or a member of an effect rule other "
        "than `id`, `kind`, `when`, `completion` and `effects` (`effect`, `condition`, an "
        "`instruction` outside a guidance rule)."
    ),
    "unknown-state-type": (
        "A state schema member whose `type` is not `integer`, `boolean`, `array` or `object` is "
        "read as an EnumSchema, whose fields the contract does not show: without an `enum` list any "
        "value fits it, comparisons with it are not checked, and every effect on it is rejected. "
        "Usually a typo."
    ),
    "unused-observation": (
        "The narrator is asked each observation every turn; when no `observed` condition reads it, "
        "the answers are recorded and ignored. Use it in a condition, or drop it."
    ),
    "unrewarded-asset": (
        "A `reward_only` asset becomes reachable only as a reward: an achievement's or ending's "
        "`artwork_asset_id`, or a badge's `front_asset_id` or `effect_mask_asset_id`. One that none "
        "of them names is never shown to any reader."
    ),
    "unawarded-badge": (
        "Badges are awarded through an achievement's or ending's `badge_id`; a badge that none "
        "names can never be earned."
    ),
    "unplayable-ending": (
        "The 0.4 contract does not show the shape of an ending (nor does the "
        "`service.progression/1` container of 0.5), so an ending with a misspelt `when` or without "
        "an `id` passes validation; the runtime plays only endings with both, so such an ending is "
        "never reached (and the reachability search cannot look for it)."
    ),
}
