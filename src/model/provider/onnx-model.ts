import protobuf from 'protobufjs';
import { seeded } from './embeddings.js';

// The subset of onnx.proto (IR 7) a one-node model needs; field numbers as in onnx/onnx.proto3.
const ONNX_PROTO = `
syntax = "proto3";
package onnx;
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message TensorShapeProto { message Dimension { int64 dim_value = 1; string dim_param = 2; } repeated Dimension dim = 1; }
message TypeProto { message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; } Tensor tensor_type = 1; }
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message TensorProto { repeated int64 dims = 1; int32 data_type = 2; string name = 8; bytes raw_data = 9; }
message AttributeProto { string name = 1; int64 i = 3; int32 type = 20; }
message NodeProto { repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4; repeated AttributeProto attribute = 5; }
message GraphProto { repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5; repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12; }
message ModelProto { int64 ir_version = 1; string producer_name = 2; string producer_version = 3; GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8; }
`;

const FLOAT = 1;
const INT64 = 7;
const ATTR_INT = 2;

/** Lowercased words, split as the generated tokenizer splits them (its Whitespace pre-tokenizer: \w+|[^\w\s]+). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/\w+|[^\w\s]+/g) ?? [];
}

export interface TinyModelFiles {
  /** path inside the model dir → contents */
  [path: string]: Buffer | string;
}

/**
 * A tiny deterministic embedding model that transformers.js loads as a BERT feature extractor:
 * one Gather node (token id → a sha256-seeded row) whose output transformers.js mean-pools and
 * normalises itself. The vocabulary is the given texts' words, so none of them is unknown; any
 * other word is [UNK], which has its own row (a text of unknown words pools to a unit vector,
 * never to zeros). `pieces` go into the vocabulary as they are (WordPiece pieces such as "##a").
 * Same texts in, byte-identical files out.
 */
export function tinyEmbeddingModel(texts: string[], dimensions = 384, pieces: string[] = []): TinyModelFiles {
  const vocabWords = [...new Set([...texts.flatMap(words), ...pieces])].sort();
  const vocab: Record<string, number> = { '[PAD]': 0, '[UNK]': 1 };
  for (const w of vocabWords) vocab[w] = Object.keys(vocab).length;
  const size = Object.keys(vocab).length;
  const table = new Float32Array(size * dimensions);
  for (const [w, id] of Object.entries(vocab)) {
    if (id === 0) continue; // padding is masked out by the pooling anyway
    table.set(seeded(`token:${w}`, dimensions), id * dimensions);
  }
  const root = protobuf.parse(ONNX_PROTO).root;
  const Model = root.lookupType('onnx.ModelProto');
  const tensorType = (elem: number, dims: (number | string)[]) => ({
    tensorType: {
      elemType: elem,
      shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
    },
  });
  const model = Model.fromObject({
    irVersion: 7,
    producerName: 'memeval',
    producerVersion: '1',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'memeval-tiny-embedder',
      node: [
        {
          input: ['table', 'input_ids'],
          output: ['last_hidden_state'],
          name: 'lookup',
          opType: 'Gather',
          attribute: [{ name: 'axis', i: 0, type: ATTR_INT }],
        },
      ],
      initializer: [{ name: 'table', dims: [size, dimensions], dataType: FLOAT, rawData: Buffer.from(table.buffer) }],
      input: [{ name: 'input_ids', type: tensorType(INT64, ['batch', 'sequence']) }],
      output: [{ name: 'last_hidden_state', type: tensorType(FLOAT, ['batch', 'sequence', dimensions]) }],
    },
  });
  const onnx = Buffer.from(Model.encode(model).finish());
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: ['[PAD]', '[UNK]'].map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Whitespace' },
    post_processor: null,
    decoder: null,
    // transformers.js 2.x has no WordLevel model; WordPiece over whole words behaves the same
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
  return {
    'config.json': JSON.stringify(
      { model_type: 'bert', architectures: ['BertModel'], hidden_size: dimensions, vocab_size: size },
      null,
      1,
    ),
    'tokenizer.json': JSON.stringify(tokenizer),
    'tokenizer_config.json': JSON.stringify({
      tokenizer_class: 'PreTrainedTokenizer',
      model_max_length: 512,
      do_lower_case: true,
      unk_token: '[UNK]',
      pad_token: '[PAD]',
    }),
    // transformers.js 2.x asks for the quantized file by default, 3.x for model.onnx (fp32)
    'onnx/model_quantized.onnx': onnx,
    'onnx/model.onnx': onnx,
  };
}

const CHARACTERS = [...'abcdefghijklmnopqrstuvwxyz0123456789_'];

/**
 * A model that knows no scenario: every ASCII letter, digit and "_" is a piece at the start of a
 * word and one after "##", so WordPiece spells any \w word out letter by letter and a text embeds
 * as the mean of its letters' rows. Texts sharing letters are near, so recall ranks by spelling.
 * For a server that loads its model from its own install rather than from the fixture.
 */
export function characterEmbeddingModel(dimensions = 384): TinyModelFiles {
  return tinyEmbeddingModel([], dimensions, [...CHARACTERS, ...CHARACTERS.map((c) => `##${c}`)]);
}
