"""The engine's ChatML prompt layout (engine/tokenizer/chat_template.cpp), replicated in Python.

With an empty system prompt the engine builds
    [BOS][<|im_start|>] "user\n{doc}\n\n"  |  "Question: {q}" [<|im_end|>] "\n" [<|im_start|>] "assistant\n"
where "|" is the split between the document part and the question part. Each text run that starts
the prompt or follows a control token is encoded on its own (with SentencePiece's dummy prefix);
the question run continues the document's text after a newline (encoded as "\n" + run with the ids
of "\n" dropped). The answer continues the "assistant\n" run the same way and ends with <|im_end|>.
Document and question are trimmed of surrounding whitespace, as the engine does.
"""
from typing import List

IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
CHAT_TEMPLATE = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
    "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


class ChatML:
    def __init__(self, sp):
        self.sp = sp
        self.bos = sp.bos_id()
        self.im_start = sp.piece_to_id(IM_START)
        self.im_end = sp.piece_to_id(IM_END)
        assert self.im_start != sp.unk_id() and self.im_end != sp.unk_id()
        self._nl = sp.encode("\n")

    def encode(self, text: str) -> List[int]:
        return self.sp.encode(text) if text else []

    def encode_after_newline(self, text: str) -> List[int]:
        ids = self.sp.encode("\n" + text)
        if ids[:len(self._nl)] == self._nl:
            return ids[len(self._nl):]
        return self.sp.encode(text)

    def document_part(self, doc: str) -> List[int]:
        ids = [] if self.bos == self.im_start or self.bos < 0 else [self.bos]
        return ids + [self.im_start] + self.encode("user\n" + doc.strip() + "\n\n")

    def question_part(self, question: str) -> List[int]:
        return (self.encode_after_newline("Question: " + question.strip()) + [self.im_end] + self.encode("\n") +
                [self.im_start] + self.encode("assistant\n"))

    def answer(self, answer: str) -> List[int]:
        """The ids the model should generate: the answer text, then <|im_end|>."""
        return self.encode_after_newline(answer) + [self.im_end]
