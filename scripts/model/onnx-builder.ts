/** A small, deterministic builder for ONNX graphs on top of onnx-proto's message classes. */
import { onnx } from "onnx-proto";

const { DataType } = onnx.TensorProto;
const { AttributeType } = onnx.AttributeProto;

export type AttributeValue = { int: number } | { float: number } | { ints: number[] };

export type ValueInfo = { name: string; elemType: onnx.TensorProto.DataType; dims: (number | string)[] };

export class GraphBuilder {
  private readonly nodes: onnx.INodeProto[] = [];
  private readonly initializers: onnx.ITensorProto[] = [];
  private readonly constants = new Map<string, string>();
  private nextId = 0;

  /** Adds a node and returns its output names; generated names are sequence numbers, so every run emits the same bytes. */
  op(
    opType: string,
    inputs: string[],
    attributes: Record<string, AttributeValue> = {},
    options: { outputs?: number | string[]; domain?: string } = {},
  ): string[] {
    const id = this.nextId++;
    const outputs = Array.isArray(options.outputs)
      ? options.outputs
      : Array.from({ length: options.outputs ?? 1 }, (_, i) => `${opType}_${id}_out${i}`);
    this.nodes.push({
      name: `${opType}_${id}`,
      opType,
      ...(options.domain ? { domain: options.domain } : {}),
      input: inputs,
      output: outputs,
      attribute: Object.entries(attributes).map(([name, value]) => toAttribute(name, value)),
    });
    return outputs;
  }

  /** Single-output shorthand for op(). */
  op1(opType: string, inputs: string[], attributes: Record<string, AttributeValue> = {}): string {
    return this.op(opType, inputs, attributes)[0];
  }

  float(name: string, dims: number[], data: Float32Array): string {
    return this.addInitializer(name, DataType.FLOAT, dims, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }

  int8(name: string, dims: number[], data: Int8Array): string {
    return this.addInitializer(name, DataType.INT8, dims, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }

  uint8(name: string, dims: number[], data: Uint8Array): string {
    return this.addInitializer(name, DataType.UINT8, dims, data);
  }

  int64(name: string, dims: number[], values: number[]): string {
    const data = BigInt64Array.from(values.map(BigInt));
    return this.addInitializer(name, DataType.INT64, dims, new Uint8Array(data.buffer));
  }

  /** A shared constant (scalar when dims is []), created once per distinct value. */
  floatConstant(values: number[], dims: number[] = []): string {
    return this.shared(`f32:${dims}:${values}`, (name) => this.float(name, dims, Float32Array.from(values)));
  }

  int64Constant(values: number[], dims: number[] = [values.length]): string {
    return this.shared(`i64:${dims}:${values}`, (name) => this.int64(name, dims, values));
  }

  uint8Constant(value: number): string {
    return this.shared(`u8:${value}`, (name) => this.uint8(name, [], Uint8Array.of(value)));
  }

  toModel(inputs: ValueInfo[], outputs: ValueInfo[], opsets: Record<string, number>, producer: string): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: producer,
      opsetImport: Object.entries(opsets).map(([domain, version]) => ({ domain, version })),
      graph: {
        name: "main",
        node: this.nodes,
        initializer: this.initializers,
        input: inputs.map(toValueInfo),
        output: outputs.map(toValueInfo),
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }

  private shared(key: string, create: (name: string) => string): string {
    let name = this.constants.get(key);
    if (!name) {
      name = create(`const_${this.constants.size}`);
      this.constants.set(key, name);
    }
    return name;
  }

  private addInitializer(name: string, dataType: onnx.TensorProto.DataType, dims: number[], rawData: Uint8Array): string {
    this.initializers.push({ name, dataType, dims, rawData });
    return name;
  }
}

function toAttribute(name: string, value: AttributeValue): onnx.IAttributeProto {
  if ("int" in value) return { name, type: AttributeType.INT, i: value.int };
  if ("float" in value) return { name, type: AttributeType.FLOAT, f: value.float };
  return { name, type: AttributeType.INTS, ints: value.ints };
}

function toValueInfo(info: ValueInfo): onnx.IValueInfoProto {
  return {
    name: info.name,
    type: {
      tensorType: {
        elemType: info.elemType,
        shape: { dim: info.dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

export { DataType };
